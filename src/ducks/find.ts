/**
 * Finds ducks: a path (`ducks/x.duck`), a name from the user's duck folder, or a bundled starter.
 */
import { closeSync, existsSync, fstatSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../errors.js';
import { didYouMean } from '../text/suggest.js';
import type { Duck } from './duck.js';
import { MAX_DUCK_BYTES, parseDuck, tooLargeDuck } from './parse.js';
import { findBody, robotCan } from '../bodies/index.js';
import { checkDuckForBody } from './check.js';

export const STARTERS_DIR = fileURLToPath(new URL('./starters/', import.meta.url));

export interface DuckListing {
  readonly name: string;
  readonly path: string;
  readonly origin: 'starter' | 'yours';
  /** The duck's description, else its first heading; or why it does not parse. */
  readonly title: string;
  readonly valid: boolean;
  /** A flock duck: its members as the flock names them, and the coordinator's plan. */
  readonly flock?: { readonly members: readonly string[]; readonly plan: string };
  /** A duck of yours with a starter's name: `quackd run NAME` runs yours, so the starter is not listed. */
  readonly shadows?: 'starter';
}

function listDir(dir: string, origin: DuckListing['origin']): DuckListing[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.duck'))
    .sort()
    .map((f) => {
      const path = join(dir, f);
      const name = basename(f, '.duck');
      try {
        const duck = loadDuckFile(path);
        // A flock's members are checked where their bodies are known here: the body keys among them.
        // No robot is named here, so each as a robot of no settings (runnableDucks() checks one robot's).
        const keys = duck.flock === undefined ? [duck.robot] : duck.flock.members.flatMap((m) => (m.ref.kind === 'local' && m.ref.robot.includes(':') ? [m.ref.robot] : []));
        for (const key of new Set(keys)) {
          const body = findBody(key);
          if (body === undefined) throw new InputError(`${path}:${duck.lines.robot ?? 1}: robot: unknown body "${key}"`);
          checkDuckForBody(duck, body, robotCan(body, {}));
        }
        const heading = /^#\s+(.+)$/m.exec(duck.text)?.[1] ?? '';
        const title = duck.description ?? heading.trim();
        if (duck.flock === undefined) return { name, path, origin, title, valid: true };
        const flock = { members: duck.flock.members.map((m) => m.name), plan: duck.flock.plan };
        return { name, path, origin, title: `${title} (flock of ${flock.members.length}, ${flock.plan})`, valid: true, flock };
      } catch (err) {
        return { name, path, origin, title: `(invalid: ${err instanceof Error ? err.message : String(err)})`, valid: false };
      }
    });
}

/**
 * Each name once: yours (the ducks in `yoursDir`, `userDucksDir(env)`) before the starters, as
 * findDuck() looks them up. Without a folder, only the starters.
 */
export function listDucks(yoursDir?: string): DuckListing[] {
  const starters = listDir(STARTERS_DIR, 'starter');
  const starterNames = new Set(starters.map((d) => d.name));
  const yours = (yoursDir !== undefined ? listDir(yoursDir, 'yours') : []).map((d): DuckListing => (starterNames.has(d.name) ? { ...d, shadows: 'starter' } : d));
  const mine = new Set(yours.map((d) => d.name));
  return [...yours, ...starters.filter((d) => !mine.has(d.name))];
}

/** `./x`, `a/b.duck`, `x.duck` are paths; a bare `hello-world` is a name, even if a file of that name sits here. */
export function looksLikePath(ref: string): boolean {
  return ref.includes('/') || ref.includes('\\') || extname(ref) === '.duck';
}

export function loadDuckFile(path: string): Duck {
  let text: string;
  try {
    // The size first, on the file opened: a huge file is refused unread.
    const fd = openSync(path, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size > MAX_DUCK_BYTES) throw tooLargeDuck(path, size);
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : `cannot read (${code ?? String(err)})`}`);
  }
  return parseDuck(text, path, basename(path, extname(path)));
}

/** `find-and-kick`, `./mine.duck`, `~/.quackd/ducks/x.duck` → a parsed Duck. */
export function findDuck(ref: string, yoursDir?: string): Duck {
  return looksLikePath(ref) ? loadDuckFile(ref) : namedDuck(ref, yoursDir, `'quackd ducks' lists them; a path to a .duck file works too`);
}

/** A duck by name alone (a run on request: the service reads no path for its asker), its hint saying so. */
export function findDuckByName(ref: string, yoursDir?: string): Duck {
  return namedDuck(ref, yoursDir, `'quackd ducks' lists them; a run on request takes a name, never a path`);
}

function namedDuck(ref: string, yoursDir: string | undefined, hint: string): Duck {
  // Yours first, then the starters, as listDucks() orders them; only the one named is read (the
  // others parsed here cost `quackd run` a tenth of a second).
  const yours = yoursDir !== undefined ? join(yoursDir, `${ref}.duck`) : undefined;
  if (yours !== undefined && existsSync(yours)) return loadDuckFile(yours);
  const starter = join(STARTERS_DIR, `${ref}.duck`);
  if (existsSync(starter)) return { ...loadDuckFile(starter), source: `starter:${ref}` };
  const names = [...new Set([...(yoursDir !== undefined ? duckNames(yoursDir) : []), ...duckNames(STARTERS_DIR)])];
  throw new InputError(`no duck named "${ref}"${didYouMean(ref, names)}`, hint);
}

/** The names of the ducks in `dir`, unread. */
function duckNames(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.duck')).map((f) => basename(f, '.duck')) : [];
}
