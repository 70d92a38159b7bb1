/**
 * A small builder for the bundled policies' ONNX graphs, over onnx-proto (the ONNX protobuf
 * definitions, so the bytes are the format's own encoder's, not ours). Float32 tensors only,
 * one observation in, one action vector out. Names are numbered in the order nodes are added,
 * so the same parameters always give the same bytes.
 *
 * IR version 8 and opset 17: the newest Debian's python3-onnx (1.12) can check, and far below
 * what onnxruntime 1.30 runs.
 */
import onnxProto from 'onnx-proto';

const { onnx } = onnxProto;
const FLOAT = onnx.TensorProto.DataType.FLOAT;

export const IR_VERSION = 8;
export const OPSET = 17;

/** A row-major matrix: rows × columns. */
export type Matrix = readonly (readonly number[])[];

export function zeros(rows: number, cols: number): number[][] {
  return Array.from({ length: rows }, () => new Array<number>(cols).fill(0));
}

function valueInfo(name: string, dims: readonly number[]): InstanceType<typeof onnx.ValueInfoProto> {
  return onnx.ValueInfoProto.create({ name, type: { tensorType: { elemType: FLOAT, shape: { dim: dims.map((d) => ({ dimValue: d })) } } } });
}

export class GraphBuilder {
  private readonly nodes: InstanceType<typeof onnx.NodeProto>[] = [];
  private readonly initializers: InstanceType<typeof onnx.TensorProto>[] = [];
  private count = 0;

  constructor(
    /** The graph's one input, [1, width]. */
    readonly input: string,
    readonly inputWidth: number,
  ) {}

  private name(prefix: string): string {
    this.count += 1;
    return `${prefix}_${this.count}`;
  }

  private tensor(prefix: string, dims: readonly number[], data: readonly number[]): string {
    const name = this.name(prefix);
    for (const v of data) if (!Number.isFinite(v)) throw new RangeError(`${name}: non-finite constant ${v}`);
    this.initializers.push(onnx.TensorProto.create({ name, dims: [...dims], dataType: FLOAT, floatData: [...data] }));
    return name;
  }

  /** A constant [rows, cols] matrix. */
  matrix(prefix: string, m: Matrix): string {
    return this.tensor(prefix, [m.length, m[0]?.length ?? 0], m.flat());
  }

  /** A constant [1, n] row, broadcast against a [1, n] value. */
  row(prefix: string, values: readonly number[]): string {
    return this.tensor(prefix, [1, values.length], values);
  }

  /** A constant scalar (Clip's bounds). */
  scalar(prefix: string, value: number): string {
    return this.tensor(prefix, [], [value]);
  }

  /** One node; returns the name of its (single) output. */
  op(opType: string, inputs: readonly string[], attributes: { readonly axis?: number } = {}): string {
    const output = this.name(opType.toLowerCase());
    const attribute = attributes.axis === undefined ? [] : [onnx.AttributeProto.create({ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: attributes.axis })];
    this.nodes.push(onnx.NodeProto.create({ name: output, opType, input: [...inputs], output: [output], attribute }));
    return output;
  }

  matmul(x: string, m: Matrix, prefix = 'w'): string {
    return this.op('MatMul', [x, this.matrix(prefix, m)]);
  }

  /** The input's columns `picks` (each a row of coefficients over the input: a selection or a sum). */
  pick(picks: readonly (readonly [index: number, weight: number][])[], prefix = 'pick'): string {
    const m = zeros(this.inputWidth, picks.length);
    picks.forEach((terms, col) => {
      for (const [index, weight] of terms) (m[index] as number[])[col] = weight;
    });
    return this.matmul(this.input, m, prefix);
  }

  /** The serialised model: `output` renamed to `outputName` through an Identity. */
  model(opts: { readonly output: string; readonly outputName: string; readonly outputWidth: number; readonly name: string; readonly doc: string; readonly metadata: Readonly<Record<string, string>> }): Uint8Array {
    this.nodes.push(onnx.NodeProto.create({ name: opts.outputName, opType: 'Identity', input: [opts.output], output: [opts.outputName] }));
    const graph = onnx.GraphProto.create({
      name: opts.name,
      docString: opts.doc,
      input: [valueInfo(this.input, [1, this.inputWidth])],
      output: [valueInfo(opts.outputName, [1, opts.outputWidth])],
      initializer: this.initializers,
      node: this.nodes,
    });
    const model = onnx.ModelProto.create({
      irVersion: IR_VERSION,
      opsetImport: [{ domain: '', version: OPSET }],
      producerName: 'quackd make:policies',
      docString: opts.doc,
      graph,
      metadataProps: Object.entries(opts.metadata).map(([key, value]) => ({ key, value })),
    });
    return onnx.ModelProto.encode(model).finish();
  }
}
