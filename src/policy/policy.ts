/**
 * A loaded skill policy: an ONNX model and its manifest. `run` maps one observation vector to one
 * raw action vector (before scaling: target = home + action_scale × action).
 */
import type { PolicyManifest } from './manifest.js';

export type PolicyRuntime = 'onnxruntime-node' | 'onnxruntime-web';

export interface Policy {
  readonly dir: string;
  readonly manifest: PolicyManifest;
  /** Which ONNX runtime runs it (`quackd health` says so: armv7 has only the WebAssembly one). */
  readonly runtime: PolicyRuntime;
  /** obs: manifest.obs_len floats → manifest.action_len floats. */
  run(obs: Float32Array): Promise<Float32Array>;
  close(): Promise<void>;
}
