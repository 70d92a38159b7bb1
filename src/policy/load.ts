/**
 * loadPolicy: a policy folder (`policy.onnx` + `manifest.json`) to a running ONNX session. The
 * manifest is checked against the robot and against the model's own input and output shapes
 * before anything can run it, so a 51-input file where the manifest says 61 is refused at load,
 * in one line, with the robot standing still, not misread at the first tick.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { InferenceSession } from 'onnxruntime-node';
import { PolicyError } from './errors.js';
import { inFlight } from './in-flight.js';
import { parseManifest, resolveManifest, type ModelShape } from './manifest.js';
import type { Policy } from './policy.js';
import { loadRuntime, type RuntimeChoice } from './runtime.js';

export interface LoadOptions {
  /** Default `auto`: onnxruntime-node, or onnxruntime-web where the native binding does not load. */
  readonly runtime?: RuntimeChoice;
  /** The body's robot model (default `microduck`); a manifest naming another is refused. */
  readonly robot?: string;
}

const FOLDER = 'a policy folder holds policy.onnx and manifest.json';

const isMissing = (err: unknown): boolean => err instanceof Error && 'code' in err && (err.code === 'ENOENT' || err.code === 'ENOTDIR');

async function readPolicyFiles(dir: string): Promise<{ manifestFile: string; modelFile: string; manifestText: string; model: Uint8Array }> {
  const manifestFile = join(dir, 'manifest.json');
  const modelFile = join(dir, 'policy.onnx');
  const info = await stat(dir).catch((err: unknown) => {
    if (isMissing(err)) throw new PolicyError('missing', dir, `${dir}: no such policy folder (${FOLDER})`);
    throw err;
  });
  if (!info.isDirectory()) throw new PolicyError('missing', dir, `${dir}: not a folder (${FOLDER})`);
  const [manifestText, model] = await Promise.all([readFile(manifestFile, 'utf8').catch((err: unknown) => (isMissing(err) ? undefined : Promise.reject(err))), readFile(modelFile).catch((err: unknown) => (isMissing(err) ? undefined : Promise.reject(err)))]);
  if (manifestText === undefined && model === undefined) throw new PolicyError('missing', dir, `${dir}: no policy.onnx and no manifest.json (${FOLDER})`);
  if (manifestText === undefined) throw new PolicyError('missing', manifestFile, `${manifestFile}: missing (${FOLDER})`);
  if (model === undefined) throw new PolicyError('missing', modelFile, `${modelFile}: missing (${FOLDER})`);
  return { manifestFile, modelFile, manifestText, model };
}

/** The width of a [n] or [batch, n] float tensor, when the model fixes it. */
function width(meta: InferenceSession.ValueMetadata | undefined, what: string, file: string): number | undefined {
  if (meta === undefined || !meta.isTensor) throw new PolicyError('mismatch', file, `${file}: its ${what} is not a tensor`);
  if (meta.type !== 'float32') throw new PolicyError('mismatch', file, `${file}: its ${what} ${meta.name} is ${meta.type}, not float32`);
  const last = meta.shape.at(-1);
  return typeof last === 'number' && meta.shape.length <= 2 ? last : undefined;
}

function modelShape(session: InferenceSession, file: string): { shape: ModelShape; input: string; output: string; dims: 1 | 2 } {
  if (session.inputNames.length !== 1) {
    throw new PolicyError('mismatch', file, `${file} has ${session.inputNames.length} inputs (${session.inputNames.join(', ')}): quackd feeds one observation tensor (recurrent policies, model_api 2, are not supported)`);
  }
  // Trained exports name theirs `obs` → `actions`; a graph with extra outputs still has its actions first or by name.
  const output = session.outputNames.includes('actions') ? 'actions' : session.outputNames[0];
  if (output === undefined) throw new PolicyError('mismatch', file, `${file} has no outputs`);
  const inputMeta = session.inputMetadata[0];
  const outputMeta = session.outputMetadata[session.outputNames.indexOf(output)];
  const inputs = width(inputMeta, 'input', file);
  const outputs = width(outputMeta, 'output', file);
  const dims = inputMeta?.isTensor === true && inputMeta.shape.length === 1 ? 1 : 2;
  return { shape: { ...(inputs !== undefined ? { inputs } : {}), ...(outputs !== undefined ? { outputs } : {}) }, input: session.inputNames[0] ?? 'obs', output, dims };
}

/**
 * Loads the policy in `dir`. Refusals are PolicyErrors with one-line messages naming the file:
 * missing files, a manifest that fails its schema or claims another robot, a model whose shapes
 * disagree with the manifest, a file the runtime cannot parse.
 */
export async function loadPolicy(dir: string, opts: LoadOptions = {}): Promise<Policy> {
  const files = await readPolicyFiles(dir);
  const parsed = parseManifest(files.manifestText, files.manifestFile);
  const { runtime, ort, options } = await loadRuntime(opts.runtime);
  let session: InferenceSession;
  try {
    session = await inFlight(ort.InferenceSession.create(files.model, options));
  } catch (err) {
    const why = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
    throw new PolicyError('model', files.modelFile, `${files.modelFile}: not a model ${runtime} can load (${why})`);
  }
  try {
    const { shape, input, output, dims } = modelShape(session, files.modelFile);
    const manifest = resolveManifest(parsed, shape, { manifestFile: files.manifestFile, modelFile: files.modelFile, ...(opts.robot !== undefined ? { robot: opts.robot } : {}) });
    const inputDims = dims === 1 ? [manifest.obs_len] : [1, manifest.obs_len];
    let closed: Promise<void> | undefined;
    return {
      dir,
      manifest,
      runtime,
      async run(obs: Float32Array): Promise<Float32Array> {
        if (obs.length !== manifest.obs_len) throw new RangeError(`policy ${dir}: observation has ${obs.length} values, expected ${manifest.obs_len}`);
        const result = await inFlight(session.run({ [input]: new ort.Tensor('float32', obs, inputDims) }));
        const data = result[output]?.data;
        if (!(data instanceof Float32Array) || data.length !== manifest.action_len) throw new Error(`policy ${dir}: ${output} is not ${manifest.action_len} float32 values`);
        return data;
      },
      close(): Promise<void> {
        closed ??= inFlight(session.release());
        return closed;
      },
    };
  } catch (err) {
    await inFlight(session.release());
    throw err;
  }
}
