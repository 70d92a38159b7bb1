/**
 * The temporary file a record is written whole to before it is renamed over the old one
 * (`<name>.<pid>.tmp`, beside it). A crash between the write and the rename (kill -9, a power cut)
 * leaves that file behind, and nothing else would ever remove it from the data directory (the
 * credentials' holds passwords). So each write asks its path here, which first removes the ones
 * of the same record left by processes no longer alive; a live process's is left alone: another
 * quackd may be writing it.
 */
import { readdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { processAlive } from './process-alive.js';

/** Where this process writes `path` before renaming it into place; leftovers of dead processes removed first. */
export function tmpBeside(path: string): string {
  sweepDeadTmps(path);
  return `${path}.${process.pid}.tmp`;
}

/** Removes `<path>.<pid>.tmp` of every pid that is not a live process. Never throws: a record is written or read whatever is left. */
export function sweepDeadTmps(path: string): void {
  const dir = dirname(path);
  const prefix = `${basename(path)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pid = name.slice(prefix.length, -'.tmp'.length);
    if (!/^[1-9][0-9]*$/.test(pid) || processAlive(Number(pid))) continue;
    try {
      rmSync(join(dir, name), { force: true });
    } catch {
      // Not ours to remove (another user's directory entry): left as it was.
    }
  }
}
