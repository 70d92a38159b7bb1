/**
 * The integrity check `quackd memory doctor` runs in a child process: open the store read-only
 * and read every entry. LMDB damage below the meta pages can crash the native reader outright
 * (SIGSEGV), and doctor must report that rather than die of it. Prints one JSON object
 * (DeepCheckResult) on stdout. Usage: node deep-check.js DIR
 */
import type { BodyKey } from '../bodies/body.js';
import { BODY_CAP } from './entry.js';
import { openMemoryStore } from './store.js';

export interface DeepCheckResult {
  readonly entries: number;
  readonly invalid: readonly { key: string; problem: string }[];
  readonly bodies: readonly { body: BodyKey; notes: number; episodes: number; lastWrite?: string; problems: readonly string[] }[];
  readonly stats: Readonly<Record<string, unknown>>;
}

async function check(dir: string): Promise<DeepCheckResult> {
  // Opened like every other reader: under the store guard (src/memory/store.ts).
  const store = await openMemoryStore(dir, { readOnly: true });
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
    return { body, notes: notes.length, episodes: all.length - notes.length, ...(lastWrite !== undefined ? { lastWrite } : {}), problems };
  });
  const stats = store.stats();
  await store.close();
  return { entries, invalid, bodies, stats };
}

const dir = process.argv[2];
if (dir !== undefined) process.stdout.write(`${JSON.stringify(await check(dir))}\n`);
