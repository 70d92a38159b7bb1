/**
 * Which build of quackd is running, for the service's first log line and `quackd status`: the
 * version, and when the code it runs was built (its own file's time), so a person can tell a
 * service still running yesterday's dist after an upgrade.
 */
import { statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export function buildStamp(): string {
  try {
    return statSync(fileURLToPath(import.meta.url)).mtime.toISOString();
  } catch {
    return 'unknown';
  }
}
