/**
 * What `journalctl -u quackd` shows: under systemd the log lines are the terminal's plain ones,
 * without a time (journald stamps its own) or colour, at info; on the journal's own stream each
 * starts with its syslog priority. The summary line says what changed in its window.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import type { ControlStats } from '../../src/control/stats.js';
import { journalStream } from '../../src/log.js';
import { EventBus } from '../../src/runtime/events.js';
import { busFigures, startSummary, summaryFacts } from '../../src/service/summary.js';
import { tempDir } from '../helpers/tmp.js';

const LOG = fileURLToPath(new URL('../../src/log.ts', import.meta.url));

// Logs what a service logs, as the process's own logger does (from its environment).
const SCRIPT = `
import { logger } from ${JSON.stringify(LOG)};
const log = logger('service');
log.debug({ tick: 1 }, 'a tick');
log.info({ robots: 2, version: '0.1.0' }, 'quackd serve started');
log.warn({ robot: 'kitchen-duck', err: new Error('link lost\\n    at somewhere') }, 'body offline');
log.error('two\\nlines');
`;

/** Runs SCRIPT with stderr into a file; `journal` puts that file's device:inode in JOURNAL_STREAM. */
function logsOf(env: NodeJS.ProcessEnv, journal: boolean): string {
  const file = join(tempDir(), 'stderr');
  const fd = openSync(file, 'w');
  try {
    const st = fstatSync(fd);
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], {
      env: { PATH: process.env['PATH'], ...env, ...(journal ? { JOURNAL_STREAM: `${st.dev}:${st.ino}` } : {}) },
      stdio: ['ignore', 'ignore', fd],
    });
    assert.equal(r.status, 0, readFileSync(file, 'utf8'));
  } finally {
    closeSync(fd);
  }
  return readFileSync(file, 'utf8');
}

describe('logs under systemd', () => {
  it('on the journal stream: one line a record with its priority, no time, no colour, no JSON; info by default', () => {
    assert.equal(
      logsOf({ INVOCATION_ID: 'f00d' }, true),
      ['<6>service: quackd serve started robots=2 version=0.1.0', '<4>service: body offline robot=kitchen-duck err="link lost"', '<3>service: two lines', ''].join('\n'),
    );
  });

  it('on another stderr of a unit (INVOCATION_ID): the same lines without priorities; QUACKD_LOG_LEVEL still rules', () => {
    const lines = logsOf({ INVOCATION_ID: 'f00d', QUACKD_LOG_LEVEL: 'debug' }, false).split('\n');
    assert.equal(lines[0], 'service: a tick tick=1');
    assert.equal(lines[1], 'service: quackd serve started robots=2 version=0.1.0');
  });

  it('outside systemd nothing changes: JSON lines at warn', () => {
    const lines = logsOf({}, false).trimEnd().split('\n');
    assert.deepEqual(
      lines.map((l) => (JSON.parse(l) as { msg: string }).msg),
      ['body offline', 'two\nlines'],
    );
  });
});

const stats = (hz: number, missed: number, state: ControlStats['state'] = 'running'): ControlStats => ({
  state,
  scheduling: 'normal (test)',
  mode: 'realtime',
  periodMs: 20,
  ticks: 0,
  hz,
  missed,
  overruns: 0,
  readFailures: 0,
  refusals: 0,
  clamped: 0,
  stepLimited: 0,
  plantErrors: 0,
  lateMs: { p50: 0, p99: 0, max: 0 },
  workMs: { p50: 0, p99: 0, max: 0 },
});

describe('the summary line', () => {
  it('counts runs, steps and missed periods off the bus and says what changed since the last line', async () => {
    const events = new EventBus();
    const counted = busFigures(events);
    const lines: string[] = [];
    const log = pino({ level: 'info' }, journalStream({ write: (l: string) => lines.push(l) }, true)).child({ module: 'service' });
    events.emit('run:step', { robot: 'duck', runId: 'r1', step: 1, verb: 'quack', label: 'quack', ok: true, summary: 'quacked' });
    events.emit('run:step', { robot: 'duck', runId: 'r1', verb: 'remember', label: 'remember', ok: true, summary: 'noted' });
    events.emit('run:step', { robot: 'duck', runId: 'r1', step: 2, verb: 'quack', label: 'quack', ok: true, summary: 'quacked' });
    events.emit('run:end', { robot: 'duck', key: 'microduck:sim2d', runId: 'r1', duck: 'hello-world', outcome: { status: 'success', reason: 'quacked' } });
    events.emit('control:stats', { robot: 'duck', stats: stats(49.9, 3) });
    const summary = startSummary(counted.figures, log, 40);
    while (lines.length < 2) await new Promise((r) => setTimeout(r, 20));
    summary.stop();
    counted.stop();
    assert.equal(lines[0], '<6>service: summary of the last 40 ms window_s=0 runs=1 steps=2 loop_hz=49.9 missed=3 overruns=0\n');
    assert.equal(lines[1], '<6>service: summary of the last 40 ms window_s=0 runs=0 steps=0 loop_hz=49.9 missed=0 overruns=0\n');
  });

  it('names the slowest of several loops, counts a reopened loop from 0, and leaves out loops that closed', () => {
    const before = { runs: 4, steps: 30, loops: [{ robot: 'a', hz: 50, periodMs: 20, missed: 10, overruns: 1 }], dropped: 2 };
    const now = { runs: 6, steps: 41, loops: [{ robot: 'a', hz: 50, periodMs: 20, missed: 2, overruns: 1 }, { robot: 'b', hz: 48.5, periodMs: 20, missed: 1, overruns: 0 }], dropped: 7 };
    assert.deepEqual(summaryFacts(before, now, 300_000), { window_s: 300, runs: 2, steps: 11, loop_hz: 48.5, slowest: 'b', missed: 3, overruns: 0, dropped: 5 });
    // A held servo-bus duck's loop resting at 10 Hz keeps its rate: the 48.5 Hz loop is still the slowest,
    const resting = { robot: 'c', hz: 10, periodMs: 20, restingMs: 100, missed: 0, overruns: 0 };
    assert.equal(summaryFacts(before, { ...now, loops: [...now.loops, resting] }, 300_000)['slowest'], 'b');
    // and one resting behind its rest is named with its rest.
    const behind = { ...resting, hz: 6 };
    assert.deepEqual(summaryFacts(before, { ...now, loops: [...now.loops, behind] }, 300_000), { window_s: 300, runs: 2, steps: 11, loop_hz: 6, loop_resting_ms: 100, slowest: 'c', missed: 3, overruns: 0, dropped: 5 });

    const events = new EventBus();
    const counted = busFigures(events);
    events.emit('control:stats', { robot: 'a', stats: stats(50, 0) });
    events.emit('control:stats', { robot: 'a', stats: stats(0, 0, 'closed') });
    assert.deepEqual(counted.figures().loops, []);
    counted.stop();
  });
});
