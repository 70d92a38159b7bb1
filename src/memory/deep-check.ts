/**
 * The integrity check `quackd memory doctor` runs in a child process: open the store read-only
 * and read every entry. LMDB damage below the meta pages can crash the native reader outright
 * (SIGSEGV), and doctor must report that rather than die of it. Prints one JSON object
 * (DeepCheckResult) on stdout. Usage: node deep-check.js DIR
 */
import { join } from 'node:path';
import { open, type Database, type Key } from './lmdb.js';
import type { BodyKey } from '../bodies/body.js';
import { BODY_CAP } from './entry.js';
import { DATA_FILE, openMemoryStore } from './store.js';
import { current } from './vectors.js';

export interface DeepCheckResult {
  readonly entries: number;
  readonly invalid: readonly { key: string; problem: string }[];
  readonly bodies: readonly { body: BodyKey; notes: number; episodes: number; lastWrite?: string; problems: readonly string[]; /** Entries with a vector of their current text, by `model/dims`. */ vectors?: Readonly<Record<string, number>> }[];
  readonly stats: Readonly<Record<string, unknown>>;
}

/** How a key that is not text reads in a problem line. */
function describeKey(key: unknown): string {
  if (Buffer.isBuffer(key) || key instanceof Uint8Array) return `0x${Buffer.from(key).toString('hex').slice(0, 32)}`;
  const text = JSON.stringify(key) ?? String(key);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

/**
 * Keys of the entries and order databases that are not strings (a number, binary, an array
 * someone wrote with another tool). The store's readers take every key for a string, so these
 * are found first, with the same decoding the store uses (lmdb-js shares the open environment).
 */
function oddKeys(dir: string): { key: string; problem: string }[] {
  const out: { key: string; problem: string }[] = [];
  const root = open({ path: join(dir, DATA_FILE), encoding: 'json', maxDbs: 4, readOnly: true, overlappingSync: false });
  try {
    for (const [name, label] of [['entries', 'the entries database'], ['order', 'the order index']] as const) {
      const db = root.openDB<string, Key>({ name, encoding: 'string' }) as Database<string, Key> | undefined;
      for (const key of db?.getKeys({}) ?? []) {
        if (typeof key !== 'string') out.push({ key: describeKey(key), problem: `a key in ${label} that is ${Array.isArray(key) ? 'an array' : `a ${typeof key === 'object' ? 'binary value' : typeof key}`}, not text (not written by quackd)` });
      }
    }
  } finally {
    void root.close();
  }
  return out;
}

async function check(dir: string): Promise<DeepCheckResult> {
  // Opened like every other reader: under the store guard (src/memory/store.ts). oddKeys opens
  // after it, so lmdb-js hands it the environment already open in this process.
  const store = await openMemoryStore(dir, { readOnly: true });
  const odd = oddKeys(dir);
  // The store's scans stop at such a key; the keys themselves are the finding.
  if (odd.length > 0) {
    const stats = store.stats();
    await store.close();
    return { entries: odd.length, invalid: odd, bodies: [], stats };
  }
  const invalid = store.invalid();
  let entries = invalid.length;
  const bodies = store.bodies().map((body) => {
    const all = store.body(body).entries();
    entries += all.length;
    const problems: string[] = [];
    if (all.length > BODY_CAP) problems.push(`${all.length} entries, over the cap of ${BODY_CAP}`);
    const notes = all.filter((e) => e.kind === 'note');
    const texts = new Set<string>();
    const topics = new Set<string>();
    for (const n of notes) {
      if (texts.has(n.text)) problems.push(`note ${n.id} duplicates another note's text`);
      if (n.topic !== undefined && topics.has(n.topic)) problems.push(`note ${n.id} shares topic "${n.topic}" with another note`);
      texts.add(n.text);
      if (n.topic !== undefined) topics.add(n.topic);
    }
    const lastWrite = all.reduce<string | undefined>((m, e) => (m === undefined || e.time > m ? e.time : m), undefined);
    const stored = store.body(body).vectors();
    const vectors: Record<string, number> = {};
    for (const e of all) {
      const v = stored.get(e.id);
      if (current(v, e, { model: v?.model ?? '' })) vectors[`${v.model}/${v.dims}`] = (vectors[`${v.model}/${v.dims}`] ?? 0) + 1;
    }
    return { body, notes: notes.length, episodes: all.length - notes.length, ...(lastWrite !== undefined ? { lastWrite } : {}), problems, vectors };
  });
  const stats = store.stats();
  await store.close();
  return { entries, invalid, bodies, stats };
}

const dir = process.argv[2];
if (dir !== undefined) process.stdout.write(`${JSON.stringify(await check(dir))}\n`);
