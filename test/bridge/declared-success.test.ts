/**
 * A declared success on microduck:jsonrpc is checked against the robot as it is when the pilot
 * declares it, not as it was when the pilot last looked: the host firmware on a pty streams no
 * state (`--state-hz 0`, states only on get_state) and its battery drains at 2 V/s, so a pilot
 * that thinks for a while declares over a battery that has run below the duck's `success_when`.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { PilotRequest, PilotResponse, Provider } from '../../src/pilot/providers/provider.js';
import { startRun } from '../../src/run/start-run.js';
import { noTtyGate } from '../../src/safety/gate.js';
import { readTranscript } from '../../src/transcript/reader.js';
import { duck } from '../helpers/ducks.js';
import { tempDir } from '../helpers/tmp.js';
import { Rig, missingTools, sleep } from './rig.js';

const THRESHOLD_V = 9;
const DRAIN_V_PER_S = 2;

/**
 * Reads the battery in the first observation, thinks until the firmware's battery is surely below
 * THRESHOLD_V (`thinkPast`), or not at all, then declares success; asked again, it gives up.
 */
function pilot(thinkPast: boolean): Provider & { readonly firstBattery: () => number } {
  let calls = 0;
  let first = Number.NaN;
  return {
    name: 'scripted',
    model: 'test',
    firstBattery: () => first,
    async next(request: PilotRequest): Promise<PilotResponse> {
      calls += 1;
      const usage = { inputTokens: 1, outputTokens: 1 };
      if (calls > 1) return { text: '', toolCalls: [{ id: 'c2', name: 'declare_failure', args: { reason: 'the battery ran down' } }], usage };
      first = Number(request.context.observation.data['battery_v']);
      if (thinkPast) await sleep(((first - THRESHOLD_V) / DRAIN_V_PER_S) * 1000 + 300);
      return { text: '', toolCalls: [{ id: 'c1', name: 'declare_success', args: { reason: 'the battery is charged' } }], usage };
    },
  };
}

describe('a declared success on microduck:jsonrpc', { skip: missingTools() }, () => {
  let rig: Rig | undefined;
  // A fresh firmware for each: its battery starts at 24 V and drains from the firmware's start,
  // so the body must be open and observed within 7.5 s of it. With 1 s, then 4 s, a machine under
  // load missed that (opening took 4.3 s beside four busy processes and other suites: "the rig
  // was too slow to start"). The pilot thinks only as long as the reading it got needs to run down.
  beforeEach(async () => {
    rig = await Rig.start(['--state-hz', '0', '--battery', '24', '--drain', String(DRAIN_V_PER_S)]);
  });
  afterEach(async () => {
    await rig?.cleanup();
    rig = undefined;
  });

  const fly = async (provider: Provider) => {
    const report = await startRun({
      duck: duck(`robot: microduck:jsonrpc\nverbs: [quack]\nbudgets: { llm_calls: 2 }\nsuccess_when: battery_v >= ${THRESHOLD_V}`),
      robot: 'microduck:jsonrpc',
      bodySettings: { port: rig!.hostPath },
      seed: 1,
      provider,
      gate: noTtyGate,
      dryRun: false,
      transcriptsDir: tempDir('quackd-declared-'),
      signal: new AbortController().signal,
    });
    return { report, lines: readTranscript(report.transcriptPath).lines };
  };

  it('is verified against a reading taken when it is declared', async () => {
    const p = pilot(false);
    const { report } = await fly(p);
    assert.ok(p.firstBattery() >= THRESHOLD_V, `the battery started at ${p.firstBattery()} V: the rig was too slow to start`);
    assert.equal(report.outcome.status, 'success', report.outcome.reason);
    assert.match(report.outcome.reason, /^the battery is charged \(battery_v \d+(\.\d+)? ≥ 9\)$/);
  });

  it('is refused when the battery ran down while the pilot thought, though it was charged when the pilot looked', async () => {
    const p = pilot(true);
    const { report, lines } = await fly(p);
    assert.ok(p.firstBattery() >= THRESHOLD_V, `the battery started at ${p.firstBattery()} V: the rig was too slow to start`);
    assert.equal(report.outcome.status, 'failure', report.outcome.reason);
    const refused = lines.find((l) => l.type === 'refused' && l.name === 'declare_success');
    assert.ok(refused?.type === 'refused', 'the success was not refused');
    const m = /^not accepted: battery_v is (\d+(?:\.\d+)?), needs ≥ 9$/.exec(refused.reason);
    assert.ok(m?.[1] !== undefined, refused.reason);
    assert.ok(Number(m[1]) < THRESHOLD_V);
  });
});
