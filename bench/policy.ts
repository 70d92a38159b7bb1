/**
 * Policy inference: one awaited run per 50 Hz tick, so the figures are median and p99 of single
 * calls, on onnxruntime-node and onnxruntime-web (WebAssembly), one thread each. Cases:
 *   empty   an Identity graph [1,53] → [1,53]: the cost of a call itself (the baseline);
 *   walk    the bundled walk through loadPolicy/Policy.run (19 nodes, quackd-gait-1);
 *   mlp     an MLP the size of a trained Microduck policy (51 → 512 → 256 → 128 → 14, ELU;
 *           random weights, ~193k parameters, as the 772 kB legacy files are);
 * and the same math in plain JS for walk (a small evaluator of its ONNX nodes) and mlp (loops),
 * each printed as a ratio to the baseline measured in the same run.
 *
 *   node --import tsx bench/policy.ts [--runs N]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import onnxProto from 'onnx-proto';
import { bundledPolicyDir } from '../src/policy/bundled.js';
import { loadPolicy } from '../src/policy/load.js';
import { GraphBuilder } from '../src/policy/make/onnx-graph.js';
import type { PolicyRuntime } from '../src/policy/policy.js';
import { loadRuntime } from '../src/policy/runtime.js';
import { fmt, median, percentile } from './_stats.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '5000' } } });
const RUNS = Number(values.runs);
const WARMUP = Math.min(500, RUNS);
const { onnx } = onnxProto;

interface Timing {
  readonly p50: number;
  readonly p99: number;
}

async function time(call: () => Promise<unknown> | unknown): Promise<Timing> {
  for (let i = 0; i < WARMUP; i++) await call();
  const us: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await call();
    us.push((performance.now() - t) * 1000);
  }
  return { p50: median(us), p99: percentile(us, 99) };
}

// A fixed LCG: the same weights and observations every run.
let seed = 7;
const rand = (): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648 - 0.5;
};
const randomMatrix = (rows: number, cols: number, scale: number): number[][] => Array.from({ length: rows }, () => Array.from({ length: cols }, () => rand() * scale));

const MLP_WIDTHS = [51, 512, 256, 128, 14];
const mlpWeights = MLP_WIDTHS.slice(1).map((cols, i) => ({ w: randomMatrix(MLP_WIDTHS[i] ?? 0, cols, 2 / Math.sqrt(MLP_WIDTHS[i] ?? 1)), b: Array.from({ length: cols }, () => rand() * 0.1) }));

function mlpModel(): Uint8Array {
  const g = new GraphBuilder('obs', 51);
  let x = g.input;
  mlpWeights.forEach(({ w, b }, i) => {
    x = g.op('Add', [g.matmul(x, w), g.row('b', b)]);
    if (i < mlpWeights.length - 1) x = g.op('Elu', [x]);
  });
  return g.model({ output: x, outputName: 'actions', outputWidth: 14, name: 'mlp', doc: '', metadata: {} });
}

function emptyModel(): Uint8Array {
  const g = new GraphBuilder('obs', 53);
  return g.model({ output: 'obs', outputName: 'actions', outputWidth: 53, name: 'empty', doc: '', metadata: {} });
}

/** The MLP in plain JS (flat Float32Array weights), the baseline for what ORT adds on a network of real size. */
function mlpJs(): (obs: Float32Array) => Float32Array {
  const layers = mlpWeights.map(({ w, b }) => ({ n: w.length, m: b.length, w: Float32Array.from(w.flat()), b: Float32Array.from(b), out: new Float32Array(b.length) }));
  return (obs) => {
    let x = obs;
    for (let li = 0; li < layers.length; li++) {
      const l = layers[li];
      if (l === undefined) break;
      const { n, m, w, out } = l;
      out.set(l.b);
      for (let i = 0; i < n; i++) {
        const xi = x[i] ?? 0;
        const base = i * m;
        for (let j = 0; j < m; j++) out[j] = (out[j] ?? 0) + xi * (w[base + j] ?? 0);
      }
      if (li < layers.length - 1) for (let j = 0; j < m; j++) out[j] = (out[j] ?? 0) > 0 ? (out[j] ?? 0) : Math.expm1(out[j] ?? 0);
      x = out;
    }
    return x;
  };
}

type Value = { rows: number; cols: number; data: Float64Array };

/** Plain-JS evaluation of the ops the bundled graphs use, in node order: the walk's math without ORT. */
function graphJs(bytes: Uint8Array): (obs: Float32Array) => Float64Array {
  const graph = onnx.ModelProto.decode(bytes).graph;
  if (graph === null || graph === undefined) throw new Error('no graph');
  const consts = new Map<string, Value>();
  for (const t of graph.initializer ?? []) {
    const dims = (t.dims ?? []).map(Number);
    consts.set(t.name ?? '', { rows: dims.length === 2 ? (dims[0] ?? 1) : 1, cols: dims.length === 2 ? (dims[1] ?? 1) : 1, data: Float64Array.from(t.floatData ?? []) });
  }
  const nodes = (graph.node ?? []).map((n) => ({ op: n.opType ?? '', inputs: n.input ?? [], output: n.output?.[0] ?? '', axis: Number(n.attribute?.[0]?.i ?? 1) }));
  const inputName = graph.input?.[0]?.name ?? 'obs';
  const at = (v: Value, r: number, c: number): number => v.data[(v.rows === 1 ? 0 : r) * v.cols + (v.cols === 1 ? 0 : c)] ?? 0;
  const map2 = (a: Value, b: Value, f: (x: number, y: number) => number): Value => {
    const rows = Math.max(a.rows, b.rows);
    const cols = Math.max(a.cols, b.cols);
    const data = new Float64Array(rows * cols);
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) data[r * cols + c] = f(at(a, r, c), at(b, r, c));
    return { rows, cols, data };
  };
  const map1 = (a: Value, f: (x: number) => number): Value => ({ ...a, data: a.data.map(f) });
  return (obs) => {
    const env = new Map(consts);
    env.set(inputName, { rows: 1, cols: obs.length, data: Float64Array.from(obs) });
    const get = (name: string): Value => env.get(name) ?? { rows: 1, cols: 1, data: new Float64Array(1) };
    let last: Value = get(inputName);
    for (const n of nodes) {
      const [a, b, c] = n.inputs.map(get);
      if (a === undefined) throw new Error(`${n.op}: no input`);
      switch (n.op) {
        case 'MatMul': {
          const m = b ?? a;
          const data = new Float64Array(a.rows * m.cols);
          for (let i = 0; i < a.rows; i++) for (let k = 0; k < a.cols; k++) for (let j = 0; j < m.cols; j++) data[i * m.cols + j] = (data[i * m.cols + j] ?? 0) + (a.data[i * a.cols + k] ?? 0) * (m.data[k * m.cols + j] ?? 0);
          last = { rows: a.rows, cols: m.cols, data };
          break;
        }
        case 'Add': last = map2(a, b ?? a, (x, y) => x + y); break;
        case 'Mul': last = map2(a, b ?? a, (x, y) => x * y); break;
        case 'Min': last = map2(a, b ?? a, Math.min); break;
        case 'Max': last = map2(a, b ?? a, Math.max); break;
        case 'Abs': last = map1(a, Math.abs); break;
        case 'Relu': last = map1(a, (x) => Math.max(0, x)); break;
        case 'Clip': last = map1(a, (x) => Math.min(c?.data[0] ?? Infinity, Math.max(b?.data[0] ?? -Infinity, x))); break;
        case 'Identity': last = a; break;
        case 'Concat': {
          const parts = n.inputs.map(get);
          const cols = parts.reduce((s, p) => s + p.cols, 0);
          last = { rows: 1, cols, data: Float64Array.from(parts.flatMap((p) => Array.from(p.data))) };
          break;
        }
        default:
          throw new Error(`plain-JS evaluator: no ${n.op}`);
      }
      env.set(n.output, last);
    }
    return last.data;
  };
}

const observation = (width: number): Float32Array => {
  const o = Float32Array.from({ length: width }, () => rand() * 0.2);
  o[5] = -1;
  return o;
};

const walkDir = bundledPolicyDir('walk');
const walkObs = observation(53);
const mlpObs = observation(51);
const rows: [string, PolicyRuntime | 'plain JS', Timing][] = [];

for (const runtime of ['onnxruntime-node', 'onnxruntime-web'] as const) {
  const { ort, options } = await loadRuntime(runtime);
  const empty = await ort.InferenceSession.create(emptyModel(), options);
  const mlp = await ort.InferenceSession.create(mlpModel(), options);
  const walk = await loadPolicy(walkDir, { runtime });
  rows.push(['empty (baseline)', runtime, await time(() => empty.run({ obs: new ort.Tensor('float32', walkObs, [1, 53]) }))]);
  rows.push(['walk (bundled)', runtime, await time(() => walk.run(walkObs))]);
  rows.push(['mlp 51-512-256-128-14', runtime, await time(() => mlp.run({ obs: new ort.Tensor('float32', mlpObs, [1, 51]) }))]);
  await Promise.all([empty.release(), mlp.release(), walk.close()]);
}
const walkJs = graphJs(readFileSync(join(walkDir, 'policy.onnx')));
const mlpPlain = mlpJs();
rows.push(['walk (bundled)', 'plain JS', await time(() => walkJs(walkObs))]);
rows.push(['mlp 51-512-256-128-14', 'plain JS', await time(() => mlpPlain(mlpObs))]);

const baseline = (runtime: PolicyRuntime): number => rows.find(([name, r]) => name === 'empty (baseline)' && r === runtime)?.[2].p50 ?? Number.NaN;
const node = baseline('onnxruntime-node');
console.log(`${RUNS} awaited runs after ${WARMUP} warm-up, µs; ratio = median / the empty graph's median on onnxruntime-node (${fmt(node)} µs)`);
for (const [name, runtime, t] of rows) {
  const own = runtime === 'plain JS' ? '' : `, ${fmt(t.p50 / baseline(runtime))}× its own runtime's empty call`;
  console.log(`${name.padEnd(22)} ${runtime.padEnd(17)} median ${fmt(t.p50).padStart(7)}  p99 ${fmt(t.p99).padStart(7)}   ${fmt(t.p50 / node, 2)}×${own}`);
}
