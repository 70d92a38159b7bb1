/**
 * A servo bus whose answers reach a loaded host after the bus gave up on them (its tty path
 * starved: seen in a twin patrol at load 11–15, all 14 servos "did not answer" for one cycle and
 * read back fine a moment later). The twin's servos answer a cycle's sync read and its retry in
 * time, but the host gets the answers a few ms after its last wait ran out, while `quackd do
 * walk` runs as a user runs it. One such cycle is waited for and the walk goes on, saying so;
 * two in a row end it, saying the bus answered late (how late, the host too busy), not that the
 * servos were silent; nothing answered late is taken for the answer to a later question.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { wireMs } from '../../../src/servo-bus/bus.js';
import { feetech } from '../../../src/servo-bus/protocol.js';
import { OPEN_DUCK_MINI_V2 } from '../../../src/bodies/microduck/servo-bus/joint-table.js';
import type { CliResult } from '../../helpers/cli.js';
import { beforeRunEnds, quackd } from '../../helpers/quackd.js';
import { ServoTwinProcess } from '../../helpers/servo-twin-process.js';
import { TWO_WALKS, untilSecondWalk, walkLines } from '../../helpers/two-walks.js';

/**
 * The silence the bus allows a servo, ms: the default bus_timeout_ms. The duck is held without a
 * reading for both tries and the wait after them; with 30 ms (a cycle blind for ~120 ms) the twin
 * fell mid-walk even when every late answer was waited for.
 */
const TIMEOUT_MS = 10;
/** The bus's last look at the port after a wait runs out (bus.ts's IO_GRACE_MS), ms. */
const IO_GRACE_MS = 3;
/** How long after the bus gives up on a cycle (its read, then its retry) its answers reach it, ms. */
const AFTER_MS = 4;
/**
 * When the host gives up on a cycle, from its sync read: each try waits the silence, the wire time
 * of the instruction and of 14 replies (position and speed: 4 bytes; the retry asks one more),
 * then IO_GRACE_MS; a timer fires up to ~1 ms late.
 */
function gaveUpMs(): number {
  const ids = OPEN_DUCK_MINI_V2.map((j) => j.id);
  const attempt = (length: number): number => TIMEOUT_MS + wireMs(feetech.syncRead(ids, 56, length).length + ids.length * feetech.statusBytes(length), 1_000_000) + IO_GRACE_MS + 1;
  return attempt(4) + attempt(5);
}

/** `quackd ARGS` against a fresh twin (its home holds `files`), `late` raised once the policy's goals reach the servos. */
async function quackdWhileLate(args: readonly string[], late: (twin: ServoTwinProcess, run: Promise<CliResult>) => Promise<void>, files: Readonly<Record<string, string>> = {}): Promise<Awaited<ReturnType<typeof quackd>>> {
  const twin = await ServoTwinProcess.start({ protocol: 'feetech' });
  const home = mkdtempSync(join(tmpdir(), 'quackd-servo-late-'));
  try {
    writeFileSync(join(home, 'config.yaml'), `robots:\n  duck: { body: microduck:feetech, port: ${JSON.stringify(twin.port)}, sim_imu: ${JSON.stringify(twin.imuPath)}, bus_timeout_ms: ${TIMEOUT_MS} }\n`);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(home, name), text);
    const running = quackd(args.map((a) => (a in files ? join(home, a) : a)), { env: { QUACKD_HOME: home }, timeoutMs: 60_000 });
    await beforeRunEnds(running, "the walk's goals reached the servos", twin.untilGoalWrites(25));
    await late(twin, running);
    const r = await running;
    console.log(`# ${r.stdout.trim().split('\n').slice(-2).join(' / ')}`);
    return r;
  } finally {
    await twin.close();
    rmSync(home, { recursive: true, force: true });
  }
}

// Each cycle is a sync read and its retry.
const walkWhileLate = (cycles: number): ReturnType<typeof quackd> => quackdWhileLate(['do', 'walk', '1.0', '--yes', '--robot', 'duck'], (twin) => twin.holdReplies(gaveUpMs() + AFTER_MS, 2 * cycles));

describe('a servo bus that answers late on microduck:feetech', () => {
  it('one cycle answered a few ms after the bus gave up is waited for: the walk goes on and says so', async () => {
    const r = await walkWhileLate(1);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /walk 1\.00 +walked \d+\.\d s at .*; the servo bus answered late (once|\d+ times) \(\d+ ms after it gave up at worst\), holding the duck without a reading meanwhile/);
  });

  it('two in a row end the walk saying the bus answered late, how late and why, not that the servos were silent', async () => {
    const r = await walkWhileLate(2);
    assert.equal(r.code, 3, r.stdout + r.stderr);
    assert.match(r.stdout, /walk on .*: all 14 servos answered late: \d+ ms after the bus gave up on them \(10 ms and a retry\), the host too busy to read the bus in time; torque off: read back from every servo/);
    assert.doesNotMatch(r.stdout, /did not answer|still on/);
  });

  it("each verb of a run says how late its own cycle was, not an earlier verb's", async () => {
    // 20 ms after the bus gave up is heard within the 40 ms listened for (lateGraceMs), with room for a busy host.
    const r = await quackdWhileLate(['run', 'two-walks.duck', '--provider', 'script', '--no-memory', '--yes', '--robot', 'duck'], async (twin, run) => {
      await twin.holdReplies(gaveUpMs() + 20, 2);
      await beforeRunEnds(run, 'its second walk', untilSecondWalk(twin));
      await twin.holdReplies(gaveUpMs() + AFTER_MS, 2);
    }, TWO_WALKS);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // A host this busy may be late on a cycle of its own as well (its 10 ms are tight): a walk may say more than one.
    const after = walkLines(r.stdout).map((line) => Number(/; the servo bus answered late (?:once|\d+ times) \((\d+) ms after it gave up at worst\)/.exec(line ?? '')?.[1]));
    assert.ok(after[0]! >= 20 && after[1]! < after[0]!, `the first walk's cycle ${after[0]} ms late, the second's ${after[1]} ms:\n${r.stdout}`);
  });
});
