/**
 * What a person can get wrong with a policy folder, as one-line errors that name the file. A
 * refused policy is the person's input (kind `input`, exit 2 at the CLI); no ONNX runtime that
 * loads on this machine is the world failing us (kind `runtime`). The reason and the file are
 * facts a caller can act on without parsing the message.
 */
import { QuackdError } from '../errors.js';

export type PolicyErrorReason =
  /** The folder, policy.onnx or manifest.json is not there. */
  | 'missing'
  /** manifest.json is not JSON, or a field fails the schema. */
  | 'manifest'
  /** The manifest claims another robot, or a model_api / action_len this robot cannot run. */
  | 'robot'
  /** policy.onnx's inputs or outputs disagree with the manifest, or no observation layout fits. */
  | 'mismatch'
  /** policy.onnx is not a model the runtime can load. */
  | 'model'
  /** Neither onnxruntime-node nor onnxruntime-web loads here. */
  | 'runtime';

export class PolicyError extends QuackdError {
  override readonly name = 'PolicyError';
  constructor(
    readonly reason: PolicyErrorReason,
    /** The file (or folder) the message is about. */
    readonly file: string,
    message: string,
    hint?: string,
  ) {
    super(message, reason === 'runtime' ? 'runtime' : 'input', hint);
  }
}
