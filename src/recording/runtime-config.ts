/** The runtime's recording settings from the config file: where recordings go and how much is kept, or none when `recordings.record` is false. */
import { recordingsDir } from '../config/paths.js';
import { recordingPolicy, type RecordingPolicy, type RecordingsSection } from './retention.js';

export function recordingConfig(config: { readonly recordings?: RecordingsSection }, env: NodeJS.ProcessEnv): { recordingsDir?: string; recordingRetention?: RecordingPolicy } {
  const policy = recordingPolicy(config.recordings);
  return policy.record ? { recordingsDir: recordingsDir(env), recordingRetention: policy } : {};
}
