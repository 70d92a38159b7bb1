/**
 * The environment systemd/quackd.service gives `quackd serve` (its Environment= lines), but for
 * QUACKD_HOME, which each bench sets to a folder of its own: a service measured here runs as the
 * unit runs it on a robot (MALLOC_ARENA_MAX among them).
 */
import { readFileSync } from 'node:fs';

const UNIT = new URL('../systemd/quackd.service', import.meta.url);

export function unitEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [, key, value] of readFileSync(UNIT, 'utf8').matchAll(/^Environment=([A-Za-z_][A-Za-z0-9_]*)=(.*)$/gm)) {
    if (key !== undefined && key !== 'QUACKD_HOME') env[key] = value ?? '';
  }
  return env;
}
