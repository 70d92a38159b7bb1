/**
 * The pilot's flags, declared once: `quackd run` takes them for a run, `quackd config check`
 * takes the same ones to show what a run given them would use (and that they would win).
 */
import type { PilotFlags } from '../config/pilot.js';
import { numberFlag } from './args.js';

export const PILOT_FLAGS = {
  provider: { type: 'string' },
  model: { type: 'string' },
  'base-url': { type: 'string' },
  timeout: { type: 'string' },
  retries: { type: 'string' },
  'key-file': { type: 'string' },
} as const;

type Given = Partial<Record<keyof typeof PILOT_FLAGS, string>>;

/** Unset flags stay undefined, so the environment and the config file can still fill them. */
export function pilotFlags(f: Given): PilotFlags {
  const timeout = numberFlag('timeout', f.timeout, { min: 0.1, max: 3600 });
  return {
    provider: f.provider,
    model: f.model,
    baseUrl: f['base-url'],
    timeoutMs: timeout !== undefined ? timeout * 1000 : undefined,
    retries: numberFlag('retries', f.retries, { int: true, min: 0, max: 10 }),
    keyFile: f['key-file'],
  };
}
