/**
 * `quackd torque ROBOT on|off` on a real Microduck (the host firmware over a pty), through a
 * running service as a person over SSH runs it, and in this process without one: on is a motion,
 * denied without a terminal or --yes and asked on a terminal; a yes switches it on, the firmware
 * reads it back and the service keeps it on after the run (its heartbeat feeds the watchdog); off
 * is never asked about and ends a run under way first, as a stop does.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { quackd as dispatch } from '../../src/cli/quackd.js';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import { readTranscript } from '../../src/transcript/reader.js';
import { captured, quackd } from '../helpers/quackd.js';
import { scripted } from '../helpers/scripted-provider.js';
import { tempDir } from '../helpers/tmp.js';
import { Rig, missingTools, patientBody, sleep, waitFor } from './rig.js';

describe('quackd torque through a service holding a real Microduck', { skip: missingTools() }, () => {
  let rig: Rig;
  let home: string;
  let serving: Serving;
  const env = (): NodeJS.ProcessEnv => ({ QUACKD_HOME: home });
  const bench = () => serving.service.status('bench');

  before(async () => {
    // A lenient watchdog, as the other motion tests on the rig have: a loaded machine's gap is not quackd's.
    rig = await Rig.start(['--watchdog-ms', '5000']);
    home = mkdtempSync(join(tmpdir(), 'quackd-torque-'));
    writeFileSync(join(home, 'config.yaml'), `robots:\n  bench: { body: microduck:jsonrpc, port: ${JSON.stringify(rig.hostPath)} }\n`);
    // The service's own pilot walks far (10 s planned): a run to end with torque off.
    serving = await startService({ env: env(), pilot: () => Promise.resolve(scripted([[{ name: 'walk', args: { metres: 3 } }], [{ name: 'declare_failure', args: { reason: 'stopped' } }]])) });
    await waitFor('the link to open', () => bench().link === 'ok' && bench().torque === false, 10_000);
  });
  after(async () => {
    await serving?.stop('the test');
    await rig?.cleanup();
    rmSync(home, { recursive: true, force: true });
  });

  it('on without a terminal or --yes is denied at its gate, and torque stays off', async () => {
    const r = await quackd(['torque', 'bench', 'on'], { env: env() });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /^torque-on on bench \(microduck:jsonrpc\) · pilot script/m);
    assert.match(r.stdout, /torque on +\(denied: needs confirmation; no terminal to ask, --yes to allow\)/);
    assert.match(r.stdout, /failure — step 1 \(torque on\) was denied/);
    await sleep(200);
    assert.equal(bench().torque, false);
    assert.deepEqual([bench().lastOutcome?.duck, bench().lastOutcome?.status], ['torque-on', 'failure']);
  });

  it('on a terminal it asks; a yes switches torque on, read back by the firmware, and it stays on after the run', async () => {
    const c = captured({ env: env(), input: 'y\n' });
    const code = await dispatch(['torque', 'bench', 'on'], { ...c.invocation, stdin: Object.assign(c.invocation.stdin, { isTTY: true }) });
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(code, 0, c.stdout() + c.stderr());
    assert.match(c.stderr(), /1 {2}torque on — confirm\? \[y\/N\]/);
    assert.match(c.stdout(), /^ {2}1 {2}torque on +torque on: holding the current pose$/m);
    // The success is checked against the state the firmware streams after it.
    assert.match(c.stdout(), /success — did torque on \(torque 1 = 1\)/);
    await waitFor('torque on in the status', () => bench().torque === true);
    // The run's end did not cut it, and the heartbeat keeps the firmware's watchdog fed.
    await sleep(600);
    assert.equal(bench().torque, true);
  });

  it('off is never asked about, and ends the run under way first (interrupted — stopped by torque off)', async () => {
    const walk = await serving.service.run('bench', { duck: 'walker', goal: 'walk three metres', gates: 'yes' });
    await waitFor('the walk to be under way', () => bench().loop?.state === 'running', 30_000);
    const r = await quackd(['torque', 'bench', 'off'], { env: env() });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stderr + r.stdout, /confirm\?|denied/);
    assert.match(r.stdout, /^ {2}1 {2}torque off +torque off: limp$/m);
    const report = await walk.done;
    assert.deepEqual([report.outcome.status, report.outcome.reason], ['interrupted', 'stopped by torque off']);
    const walked = readTranscript(report.transcriptPath).lines.find((l) => l.type === 'verb_result' && l.verb === 'walk');
    assert.ok(walked?.type === 'verb_result' && !walked.ok, 'the walk was stopped');
    await waitFor('torque off in the status', () => bench().torque === false);
  });
});

describe('quackd torque without a service, on a real Microduck', { skip: missingTools() }, () => {
  let rig: Rig;
  before(async () => {
    rig = await Rig.start(['--watchdog-ms', '5000']);
  });
  after(async () => {
    await rig?.cleanup();
  });
  const on = (): string[] => ['--port', rig.hostPath];

  it('off switches it off here; on is refused in one line: nothing would feed the watchdog once this exits', async () => {
    const env = { QUACKD_HOME: tempDir() };
    const off = await quackd(['torque', 'microduck:jsonrpc', 'off', ...on()], { env });
    assert.equal(off.code, 0, off.stdout + off.stderr);
    assert.match(off.stdout, /^ {2}1 {2}torque off +torque off: limp$/m);
    const refused = await quackd(['torque', 'microduck:jsonrpc', 'on', '--yes', ...on()], { env });
    assert.equal(refused.code, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr.trim(), /^quackd: torque: on needs a running quackd serve to hold microduck:jsonrpc's link: the firmware's watchdog cuts torque as soon as this command exits \(start quackd serve/);
    const body = await patientBody(rig);
    try {
      assert.equal((await body.observe()).data['torque'], false);
    } finally {
      await body.close();
    }
  });

  it('refuses a body without torque, and a word that is not on or off (exit 2)', async () => {
    const env = { QUACKD_HOME: tempDir() };
    const reachy = await quackd(['torque', 'reachy-mini:mock', 'off'], { env });
    assert.equal(reachy.code, 2);
    assert.match(reachy.stderr, /^quackd: torque: "torque" is not a verb of reachy-mini:mock/);
    const word = await quackd(['torque', 'microduck:sim2d', 'maybe'], { env });
    assert.equal(word.code, 2);
    assert.equal(word.stderr.trim(), 'quackd: torque: "maybe" is not on or off (e.g. quackd torque kitchen-duck off)');
  });
});
