/**
 * One runtime, several robots: runs on different robots go on side by side, a second run on a
 * busy robot is refused, a serial link is opened once and stays up across runs (the firmware over
 * a real pty, one boot of it in both runs' transcripts), and each run's success is measured on
 * that run alone. The journal (info log lines) says who ran what, and each torque switch.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findDuck } from '../../src/ducks/find.js';
import { withLogs } from '../../src/log.js';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import { RobotBusy } from '../../src/runtime/body-pool.js';
import { AmbiguousRobot, RobotSettingsError, UnknownRobot } from '../../src/runtime/fleet.js';
import type { RunBy } from '../../src/runtime/holder.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { noTtyGate } from '../../src/safety/gate.js';
import { readTranscript } from '../../src/transcript/reader.js';
import { Rig, missingTools } from '../bridge/rig.js';
import { duck } from '../helpers/ducks.js';
import { journal } from '../helpers/journal.js';
import { scripted } from '../helpers/scripted-provider.js';
import { tempDir } from '../helpers/tmp.js';

const never = new AbortController().signal;

/** Every info line the runs below log. */
const { root, lines: logs } = journal();

/** The firmware boot a run talked to, as its transcript records it. */
function firmwareBoot(transcriptPath: string): number {
  const links = readTranscript(transcriptPath).lines.filter((l) => l.type === 'body_link');
  assert.equal(links.length, 1, 'one body_link line per run on a serial robot');
  const link = links[0];
  assert.ok(link?.type === 'body_link');
  assert.equal(link.firmware, 'quackd-fw 0.1.0');
  assert.equal(link.board, 'host');
  return link.boot;
}

describe('the runtime', { skip: missingTools() }, () => {
  let rig: Rig;
  let runtime: Runtime;
  const opened: string[] = [];
  const closed: string[] = [];
  // Made here, not in before(): a folder's removal registered inside a hook runs when the hook
  // ends, and the runs' transcripts then made the folder again, left behind in /tmp.
  const home = tempDir('quackd-runtime-');

  before(async () => {
    rig = await Rig.start(['--watchdog-ms', '5000']);
    runtime = createRuntime({
      robots: { den: { body: 'microduck:sim2d' }, hall: { body: 'microduck:sim2d' }, bench: { body: 'microduck:jsonrpc', port: rig.hostPath } },
      memoryDir: join(home, 'memory'),
      transcriptsDir: join(home, 'transcripts'),
      dataDir: home,
    });
    runtime.events.on('body:open', (e) => opened.push(e.robot));
    runtime.events.on('body:close', (e) => closed.push(e.robot));
    await runtime.start();
  });

  after(async () => {
    await runtime?.stop();
    await rig?.cleanup();
  });

  const run = (robot: string, d = findDuck('hello-world'), provider = createFakeProvider(), signal = never, by?: RunBy) =>
    withLogs(root, () => runtime.run({ duck: d, robot: runtime.robot(robot), seed: 7, provider, gate: noTtyGate, dryRun: false, signal, ...(by !== undefined ? { by } : {}) }));

  it('runs ducks on two robots at once, the serial one and a simulator', async () => {
    const [kick, hello] = await Promise.all([run('den', findDuck('find-and-kick')), run('bench')]);
    assert.equal(kick.outcome.status, 'success', kick.outcome.reason);
    assert.equal(hello.outcome.status, 'success', hello.outcome.reason);
    assert.equal(kick.robot, 'microduck:sim2d');
    assert.equal(hello.robot, 'microduck:jsonrpc');
  });

  it("puts a run's steps, answered gates and saved memory on the event bus, named by robot and run", async () => {
    const seen: string[] = [];
    const offs = [
      runtime.events.on('run:step', (e) => e.robot === 'den' && seen.push(`step ${e.step ?? '-'} ${e.verb} ${e.ok ? 'ok' : 'no'}`)),
      runtime.events.on('run:gate', (e) => e.robot === 'den' && seen.push(`gate ${e.verb} ${e.state} ${String(e.allowed)}`)),
      runtime.events.on('memory:saved', (e) => e.robot === 'den' && seen.push(`saved ${e.kind} ${e.key}`)),
    ];
    try {
      const report = await run('den', duck('verbs: [quack, kick]\nconfirm: [kick]'), scripted([[{ name: 'quack', args: {} }], [{ name: 'kick', args: { foot: 'left' } }], [{ name: 'declare_success', args: { reason: 'done' } }]]));
      assert.equal(report.outcome.status, 'success', report.outcome.reason);
      assert.deepEqual(seen, ['step 1 quack ok', 'gate kick answered false', 'saved episode microduck:sim2d']);
    } finally {
      for (const off of offs) off();
    }
  });

  it('refuses a second run on a robot that is running one, and takes it once the first ends', async () => {
    const abort = new AbortController();
    const first = run('hall', duck('verbs: [quack]'), scripted(['hang']), abort.signal);
    await assert.rejects(run('hall'), (err: unknown) => err instanceof RobotBusy && /^hall is already running \S+ for cli .* since \d\d:\d\d:\d\d; one run at a time per robot$/.test(err.message));
    // Another robot is not held up by it.
    assert.equal((await run('den')).outcome.status, 'success');
    abort.abort();
    assert.equal((await first).outcome.status, 'interrupted');
    assert.equal((await run('hall')).outcome.status, 'success');
  });

  it('journals who ran what, the policies a held robot opened with, and each torque switch as the firmware reports it', async () => {
    const by: RunBy = { door: 'mqtt', who: 'client ha-den' };
    const calls = [[{ name: 'torque', args: { on: true } }], [{ name: 'torque', args: { on: false } }], [{ name: 'declare_success', args: { reason: 'switched' } }]];
    const r = await run('bench', duck('verbs: [torque]', 'limber'), scripted(calls), never, by);
    assert.equal(r.outcome.status, 'success', r.outcome.reason);
    const mine = logs.slice(logs.indexOf('run started: limber on bench by mqtt client ha-den'));
    assert.deepEqual(mine.slice(0, 4), ['run started: limber on bench by mqtt client ha-den', 'torque on: bench by mqtt client ha-den', 'torque off: bench by mqtt client ha-den', 'run ended: limber on bench: success — switched (unverified: nothing measured it)']);
    // The held robot opened (with the first run on it) with the bundled policies: said once.
    assert.deepEqual(logs.filter((l) => l.startsWith('policies loaded: bench')), ['policies loaded: bench (all bundled)']);
  });

  it('keeps the serial link up across runs: opened once, never closed between runs, one firmware boot', async () => {
    const boots: number[] = [];
    for (let i = 0; i < 2; i += 1) {
      const r = await run('bench');
      assert.equal(r.outcome.status, 'success', r.outcome.reason);
      // hello-world's success_when is `quacks >= 1`: the count is this run's, not the link's.
      assert.match(r.outcome.reason, /quacks 1 ≥ 1/);
      boots.push(firmwareBoot(r.transcriptPath));
    }
    assert.equal(opened.filter((r) => r === 'bench').length, 1);
    assert.deepEqual(closed.filter((r) => r === 'bench'), []);
    // The same firmware answered both runs: it did not restart in between.
    assert.equal(boots[1], boots[0]);
    // A simulator's world is the run's: opened and closed with each.
    assert.equal(opened.filter((r) => r === 'den').length, closed.filter((r) => r === 'den').length);

    // The firmware restarts behind the port that stays (the rig keeps the pty, as a USB-serial
    // bridge keeps its device node while the microcontroller resets): the link is still the one
    // opened above, and the next run says it is a new boot.
    await rig.killFirmware();
    await rig.startFirmware(['--watchdog-ms', '5000']);
    const next = await run('bench');
    assert.equal(next.outcome.status, 'success', next.outcome.reason);
    assert.notEqual(firmwareBoot(next.transcriptPath), boots[0], 'a restarted firmware has a new boot id');
    assert.equal(opened.filter((r) => r === 'bench').length, 1, 'the held link was not reopened');
    assert.deepEqual(closed.filter((r) => r === 'bench'), []);
  });

  it('a held body whose link died is not lent again: the next run opens the plugged-in robot afresh', async () => {
    const opensBefore = opened.filter((r) => r === 'bench').length;
    const abort = new AbortController();
    const waiting = run('bench', duck('verbs: [quack]'), scripted(['hang']), abort.signal);
    await new Promise((r) => setTimeout(r, 300));
    await rig.unplug();
    const lostRun = await waiting;
    assert.equal(lostRun.outcome.status, 'error', lostRun.outcome.reason);
    assert.deepEqual(closed.filter((r) => r === 'bench'), ['bench']);
    // Plugged back in (same paths): the pool opens a new link instead of lending the dead one.
    await rig.startLink();
    await rig.startFirmware(['--watchdog-ms', '5000']);
    const again = await run('bench');
    assert.equal(again.outcome.status, 'success', again.outcome.reason);
    assert.equal(opened.filter((r) => r === 'bench').length, opensBefore + 1);
  });

  it('a held body whose firmware went away between runs fails the next lease, not a verb, and is not lent again', async () => {
    const opensBefore = opened.filter((r) => r === 'bench').length;
    const closesBefore = closed.filter((r) => r === 'bench').length;
    await rig.killFirmware();
    const dead = await run('bench');
    assert.equal(dead.outcome.status, 'error', dead.outcome.reason);
    assert.match(dead.outcome.reason, /^no hello from the firmware on .+ within 1000 ms: it answered the last run: is it powered, or stuck\?$/);
    assert.equal(dead.steps, 0);
    assert.equal(closed.filter((r) => r === 'bench').length, closesBefore + 1, 'the dead body was closed');
    await rig.startFirmware(['--watchdog-ms', '5000']);
    const again = await run('bench');
    assert.equal(again.outcome.status, 'success', again.outcome.reason);
    assert.equal(opened.filter((r) => r === 'bench').length, opensBefore + 1, 'the robot was opened afresh');
  });

  it('names robots by fleet name or body key, and checks their settings with the backend schema', () => {
    assert.equal(runtime.robot('bench').settings['port'], rig.hostPath);
    assert.equal(runtime.robot('microduck:jsonrpc').name, 'bench');
    assert.equal(runtime.robot('bench', { baud: '115200' }).settings['baud'], 115200);
    assert.equal(runtime.robot('bench', { baud: '115200' }).sources['baud'], 'flag');
    assert.equal(runtime.robot('bench').sources['port'], 'file');
    assert.throws(() => runtime.robot('bnech'), (err: unknown) => err instanceof UnknownRobot && /did you mean "bench"/.test(err.message));
    assert.throws(() => runtime.robot('den', { port: '/dev/x' }), (err: unknown) => err instanceof RobotSettingsError && err.problem === 'not-taken');
    // Two sim2d robots: the key alone does not say which, and the refusal names both.
    assert.throws(() => runtime.robot('microduck:sim2d'), (err: unknown) => err instanceof AmbiguousRobot && err.message === 'microduck:sim2d is the body of 2 robots of the fleet (den, hall): name one of them');
  });
});
