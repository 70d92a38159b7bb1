/**
 * The ONNX runtimes, imported only when a policy is loaded (`quackd memory show` never pays for
 * them), once per process. onnxruntime-node is the native one; where its binding does not load
 * (armv7 has no build, a libc too old) onnxruntime-web's WebAssembly build runs the same graphs,
 * slower. Which one ran, and why the native one did not, is kept for `quackd health`.
 */
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { logger } from '../log.js';
import { PolicyError } from './errors.js';
import type { PolicyRuntime } from './policy.js';

/** `auto`: onnxruntime-node, falling back to onnxruntime-web. Naming one forces it (tests, bench, a config). */
export type RuntimeChoice = PolicyRuntime | 'auto';

/** The part of either runtime's module quackd uses; both packages export it from onnxruntime-common. */
export interface OrtModule {
  readonly InferenceSession: { create(model: Uint8Array, options?: InferenceSession.SessionOptions): Promise<InferenceSession> };
  readonly Tensor: new (type: 'float32', data: Float32Array, dims: readonly number[]) => Tensor;
}

export interface LoadedRuntime {
  readonly runtime: PolicyRuntime;
  readonly ort: OrtModule;
  /** Session options for this runtime: one thread, because a 50 Hz tick wants no thread-pool wake-ups. */
  readonly options: InferenceSession.SessionOptions;
  /** Set when `auto` fell back to the WebAssembly runtime: why the native one did not load. */
  readonly fallback?: string;
}

const imports = new Map<PolicyRuntime, Promise<OrtModule>>();

function importRuntime(runtime: PolicyRuntime): Promise<OrtModule> {
  let loading = imports.get(runtime);
  if (loading === undefined) {
    loading =
      runtime === 'onnxruntime-node'
        ? import('onnxruntime-node')
        : import('onnxruntime-web').then((web) => {
            // Before the first session: the threaded build would start workers of its own.
            web.env.wasm.numThreads = 1;
            return web;
          });
    imports.set(runtime, loading);
  }
  return loading;
}

const OPTIONS: Readonly<Record<PolicyRuntime, InferenceSession.SessionOptions>> = {
  'onnxruntime-node': { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' },
  'onnxruntime-web': { executionProviders: ['wasm'] },
};

const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

let lastFallback: string | undefined;

/** Loads (once) the runtime `choice` names, or for `auto` the best one this machine can load. */
export async function loadRuntime(choice: RuntimeChoice = 'auto'): Promise<LoadedRuntime> {
  const load = async (runtime: PolicyRuntime, fallback?: string): Promise<LoadedRuntime> => ({ runtime, ort: await importRuntime(runtime), options: OPTIONS[runtime], ...(fallback !== undefined ? { fallback } : {}) });
  if (choice !== 'auto') {
    try {
      return await load(choice);
    } catch (err) {
      throw new PolicyError('runtime', choice, `${choice} cannot load here: ${firstLine(err)}`);
    }
  }
  let nodeError: unknown;
  try {
    return await load('onnxruntime-node');
  } catch (err) {
    nodeError = err;
  }
  const why = `onnxruntime-node cannot load here (${firstLine(nodeError)})`;
  try {
    const web = await load('onnxruntime-web', why);
    if (lastFallback === undefined) logger('policy').warn({ err: firstLine(nodeError) }, 'onnxruntime-node cannot load: policies run on onnxruntime-web (WebAssembly)');
    lastFallback = why;
    return web;
  } catch (err) {
    throw new PolicyError('runtime', 'onnxruntime-web', `no ONNX runtime loads here: ${why}; onnxruntime-web: ${firstLine(err)}`);
  }
}

/** Why this process runs policies on onnxruntime-web, if an `auto` load fell back (for `quackd health`). */
export function runtimeFallback(): string | undefined {
  return lastFallback;
}
