/**
 * A temporary directory removed when the test (or suite) ends, after whatever still runs in it has
 * stopped: `after` hooks run in the order they were registered, and a directory is made before the
 * service that lives in it, so its removal would otherwise race that service's last writes
 * (ENOTEMPTY from a store it was still writing).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { after } from 'node:test';

const stoppers = new Map<string, (() => Promise<void>)[]>();

/** `stop` runs before the temporary directory holding `dir` is removed (and may run again after). */
export function stopBeforeRemoving(dir: string, stop: () => Promise<void>): void {
  stoppers.set(dir, [...(stoppers.get(dir) ?? []), stop]);
}

export function tempDir(prefix = 'quackd-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  after(async () => {
    const inside = [...stoppers.keys()].filter((d) => d === dir || d.startsWith(dir + sep));
    await Promise.all(inside.flatMap((d) => stoppers.get(d) ?? []).map((stop) => stop()));
    for (const d of inside) stoppers.delete(d);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}
