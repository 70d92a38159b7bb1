/**
 * A policy swapped under a running `quackd serve` that holds a serial duck (the host firmware
 * over a pty, microduck:jsonrpc) is warm before the next walk's first tick: its session is made
 * and run once in the control worker at the lease, right after a tick, not at the walk's first
 * verb, where making it blocked the worker just before the gait's first tick. The walk is a heavy
 * model (a session that takes tens of milliseconds to make, as a trained policy does on a Pi);
 * the run's recording says how late each of the walk's ticks started.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import onnxProto from 'onnx-proto';
import { bundledPolicyDir } from '../../src/policy/bundled.js';
import { Rig, missingTools } from '../bridge/rig.js';
import { childEnv, runCli } from '../helpers/cli.js';
import { readIndexed, type JointState } from '../helpers/mcap.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

const { onnx } = onnxProto;

/**
 * The bundled walk's manifest over a model as wide as a big trained one: obs → 60 000 → 14, all
 * zeros (the duck holds its home pose). Making its session takes some 40 ms here.
 */
function heavyWalk(home: string, name: string): string {
  const dir = join(home, name);
  mkdirSync(dir);
  cpSync(join(bundledPolicyDir('walk'), 'manifest.json'), join(dir, 'manifest.json'));
  const FLOAT = onnx.TensorProto.DataType.FLOAT;
  const zeros = (name: string, dims: number[]) => onnx.TensorProto.create({ name, dims, dataType: FLOAT, rawData: new Uint8Array(dims.reduce((a, b) => a * b, 1) * 4) });
  const value = (name: string, dims: number[]) => onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType: FLOAT, shape: { dim: dims.map((d) => ({ dimValue: d })) } } } });
  const graph = onnx.GraphProto.create({
    name: 'heavy-walk',
    input: [value('obs', [1, 53])],
    output: [value('actions', [1, 14])],
    initializer: [zeros('w1', [53, 60_000]), zeros('w2', [60_000, 14])],
    node: [onnx.NodeProto.create({ opType: 'MatMul', input: ['obs', 'w1'], output: ['hidden'] }), onnx.NodeProto.create({ opType: 'MatMul', input: ['hidden', 'w2'], output: ['actions'] })],
  });
  writeFileSync(join(dir, 'policy.onnx'), onnx.ModelProto.encode(onnx.ModelProto.create({ irVersion: 8, opsetImport: [{ domain: '', version: 17 }], graph })).finish());
  return dir;
}

interface Tick {
  header: JointState['header'];
  late_ms: number;
}

interface LogLine {
  timestamp: { sec: number; nsec: number };
  message: string;
}

const stamp = (h: JointState['header']): number => h.stamp.sec * 1e9 + h.stamp.nanosec;
const logStamp = (l: LogLine): number => l.timestamp.sec * 1e9 + l.timestamp.nsec;

describe('a policy swapped while the service holds the robot is warm before its first tick', { skip: missingTools() }, () => {
  let rig: Rig;
  before(async () => {
    rig = await Rig.start(['--watchdog-ms', '5000']);
  });
  after(async () => {
    await rig?.cleanup();
  });

  it("the next walk's first ticks start on time", async () => {
    const home = tempDir('quackd-warm-');
    const env = childEnv({ QUACKD_HOME: home });
    await serve(home, `robots:\n  bench: { body: microduck:jsonrpc, port: ${JSON.stringify(rig.hostPath)} }\nmqtt: false\n`);
    const walk = () => runCli(['do', 'walk', '0.1', '--robot', 'bench', '--yes'], { env });
    // The held body open and walked once with the policies it opened with.
    const first = await walk();
    assert.equal(first.code, 0, first.stderr);

    // Twice, each with a policy of its own: one tick late by some 12 ms was seen once on a loaded
    // machine with the policy warm (the scheduler, not the session); a policy made at the verb
    // makes the walk's first tick late in every swap, so one swap of two on time says it was warm.
    const swaps: number[][] = [];
    for (const name of ['heavy-walk-1', 'heavy-walk-2']) swaps.push(await swappedWalk(name));
    assert.ok(
      swaps.some((late) => late.every((ms) => ms < 10)),
      `from each walk's ask to its fifth tick, ticks started ${swaps.map((l) => l.join(', ')).join(' and ')} ms late: its policy was made at the verb, in the loop's worker, just before its first tick`,
    );

    async function swappedWalk(name: string): Promise<number[]> {
      const load = await runCli(['policy', 'load', 'walk', heavyWalk(home, name), '--robot', 'bench'], { env });
      assert.equal(load.code, 0, load.stderr);
      const recordings = join(home, 'recordings');
      const earlier = new Set(readdirSync(recordings));
      const swapped = await walk();
      assert.equal(swapped.code, 0, swapped.stderr);
      const file = readdirSync(recordings).find((f) => f.endsWith('.mcap') && !earlier.has(f));
      assert.ok(file !== undefined, `the walk's recording in ${recordings}`);

      const back = await readIndexed(join(recordings, file));
      const logs = (back.messages.get('/log') ?? []) as LogLine[];
      const targets = (back.messages.get('/joints/target') ?? []) as JointState[];
      const ticks = (back.messages.get('/control/tick') ?? []) as Tick[];
      // From the moment the pilot asked for the walk to its fifth tick: the held loop asks for
      // nothing between verbs, so the first target is the walk's first tick. Located by stamp
      // order, not equality, and the ask never after the walk's first tick, so that a recording
      // whose clocks disagree by a hair still reads the walk's own ticks.
      const asked = logs.find((l) => /^\s*1\s+walk \{/.test(l.message));
      const target = targets[0];
      assert.ok(asked !== undefined && target !== undefined, 'the walk asked for, and its targets, in the recording');
      const begun = ticks.findIndex((t) => stamp(t.header) >= stamp(target.header));
      const askedAt = ticks.findIndex((t) => stamp(t.header) >= logStamp(asked));
      const from = askedAt >= 0 ? Math.min(askedAt, begun) : begun;
      const at = (ns: number) => `${(ns / 1e6).toFixed(1)} ms`;
      assert.ok(begun >= 0, `the walk's first target (${at(stamp(target.header))}) among the ${ticks.length} ticks of /control/tick (${ticks.length > 0 ? `${at(stamp(ticks[0]!.header))} to ${at(stamp(ticks[ticks.length - 1]!.header))}` : 'none'}), asked at ${at(logStamp(asked))}`);
      const late = ticks.slice(from, begun + 5).map((t) => Math.round(t.late_ms * 10) / 10);
      assert.ok(late.length >= 5);
      return late;
    }
  });
});
