/**
 * Which build of quackd is running, for the service's first log line and `quackd status`: the
 * version, and when the code it runs was built (its own file's time), so a person can tell a
 * service still running yesterday's dist after an upgrade; from a clone, its commit too.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export function buildStamp(): string {
  try {
    return statSync(fileURLToPath(import.meta.url)).mtime.toISOString();
  } catch {
    return 'unknown';
  }
}

/**
 * The git commit the running code was built from, short, when it runs from a clone (a checkout or
 * a worktree of one); undefined for a bundle or an npm install, which carry no .git. Read from the
 * files, not by running git: the service's unit may have no git, and reading costs nothing.
 */
export function buildCommit(root: URL = new URL('../../', import.meta.url)): string | undefined {
  try {
    let gitDir = fileURLToPath(new URL('.git', root));
    // A worktree's .git is a file naming its folder; its branches live in the main clone's.
    if (statSync(gitDir).isFile()) gitDir = resolve(dirname(gitDir), readFileSync(gitDir, 'utf8').replace(/^gitdir:\s*/, '').trim());
    let common = gitDir;
    try {
      common = resolve(gitDir, readFileSync(join(gitDir, 'commondir'), 'utf8').trim());
    } catch {
      // A main clone: no commondir.
    }
    const head = readFileSync(join(gitDir, 'HEAD'), 'utf8').trim();
    const ref = /^ref:\s*(\S+)$/.exec(head)?.[1];
    const hash = ref === undefined ? head : refHash(ref, [gitDir, common]);
    return hash !== undefined && /^[0-9a-f]{40,64}$/.test(hash) ? hash.slice(0, 7) : undefined;
  } catch {
    return undefined;
  }
}

/** A ref's commit: its loose file, else its line in packed-refs. */
function refHash(ref: string, dirs: readonly string[]): string | undefined {
  for (const dir of dirs) {
    try {
      return readFileSync(join(dir, ref), 'utf8').trim();
    } catch {
      // Not loose here.
    }
  }
  for (const dir of dirs) {
    try {
      const line = readFileSync(join(dir, 'packed-refs'), 'utf8').split('\n').find((l) => l.endsWith(` ${ref}`));
      if (line !== undefined) return line.split(' ')[0];
    } catch {
      // No packed-refs here.
    }
  }
  return undefined;
}
