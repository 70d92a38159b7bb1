/**
 * `npm run eval:memory`: an offline check of recall, no LLM. Grows one robot's memory to the cap
 * in a real LMDB store (notes spread over time among routine episodes, a few superseded by topic,
 * the oldest episodes evicted), then asks the fixed questions and prints recall@1, recall@5, the
 * abstention rate on questions nothing answers, and the share of answers the prompt block (the
 * newest 20 notes and 5 episodes) already holds. Prints a floor sweep so the default is argued.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BODY_CAP } from '../src/memory/entry.js';
import { DEFAULT_FLOOR, rank } from '../src/memory/recall.js';
import { selectForPrompt } from '../src/memory/render.js';
import { openMemoryStore } from '../src/memory/store.js';
import { NOTES, QUESTIONS, ROUTINE_EPISODES, SPECIAL_EPISODES, routineEpisode } from './_memory-eval-data.js';

const BODY = 'microduck:sim2d';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

const dir = mkdtempSync(join(tmpdir(), 'quackd-eval-'));
try {
  let clock = Date.parse('2026-01-01T08:00:00Z');
  const store = await openMemoryStore(join(dir, 'memory'), { now: () => new Date((clock += 60_000)) });
  const memory = store.body(BODY);
  const ids = new Map<string, string>();
  const rand = lcg(7);
  const noteAt = new Map(NOTES.map((n, k) => [Math.round(((k + 0.5) * ROUTINE_EPISODES) / NOTES.length), n]));
  for (let i = 0; i < ROUTINE_EPISODES; i += 1) {
    const special = SPECIAL_EPISODES.find((e) => e.at === i);
    const ep = await memory.addEpisode({ text: special?.text ?? routineEpisode(i, rand), run: `run-${i}` });
    if (special !== undefined && ep.entry !== undefined) ids.set(special.id, ep.entry.id);
    const note = noteAt.get(i);
    if (note !== undefined) {
      const plan = await memory.remember({ text: note.text, source: i % 3 === 0 ? 'human' : 'model', ...(note.topic !== undefined ? { topic: note.topic } : {}), ...(note.tags !== undefined ? { tags: note.tags } : {}) });
      if (plan.entry !== undefined) ids.set(note.id, plan.entry.id);
    }
  }
  const entries = memory.entries();
  await store.close();

  const stored = new Set(entries.map((e) => e.id));
  const answerable = QUESTIONS.filter((q) => q.answers.length > 0);
  const unanswerable = QUESTIONS.filter((q) => q.answers.length === 0);
  for (const q of answerable) for (const a of q.answers) if (!stored.has(ids.get(a) ?? '')) throw new Error(`fixture ${a} was evicted or superseded`);

  const sel = selectForPrompt(entries);
  const inBlock = new Set([...sel.notes, ...sel.episodes].map((e) => e.id));
  const pct = (n: number, d: number) => `${((100 * n) / d).toFixed(1)}%`;

  const score = (floor: number) => {
    let at1 = 0;
    let at5 = 0;
    let silent = 0;
    let abstained = 0;
    const misses: string[] = [];
    for (const q of answerable) {
      const want = new Set(q.answers.map((a) => ids.get(a)));
      const hits = rank(entries, q.q, { limit: 5, floor });
      if (hits.length === 0) silent += 1;
      if (hits[0] !== undefined && want.has(hits[0].entry.id)) at1 += 1;
      else misses.push(q.q);
      if (hits.some((h) => want.has(h.entry.id))) at5 += 1;
    }
    const falseHits: string[] = [];
    for (const q of unanswerable) {
      if (rank(entries, q.q, { limit: 5, floor }).length === 0) abstained += 1;
      else falseHits.push(q.q);
    }
    return { at1, at5, silent, abstained, misses, falseHits };
  };

  const main = score(DEFAULT_FLOOR);
  const blockShare = answerable.filter((q) => q.answers.some((a) => inBlock.has(ids.get(a) ?? ''))).length;
  console.log(`memory eval · ${entries.length} entries (cap ${BODY_CAP}): ${sel.totalNotes} notes, ${sel.totalEpisodes} episodes · ${answerable.length} answerable + ${unanswerable.length} unanswerable questions`);
  console.log(`recall@1              ${pct(main.at1, answerable.length)}  (${main.at1}/${answerable.length})`);
  console.log(`recall@5              ${pct(main.at5, answerable.length)}  (${main.at5}/${answerable.length})`);
  console.log(`abstention rate       ${pct(main.abstained, unanswerable.length)}  (${main.abstained}/${unanswerable.length} unanswerable questions got no answer)`);
  console.log(`false abstentions     ${pct(main.silent, answerable.length)}  (${main.silent}/${answerable.length} answerable questions got no answer)`);
  console.log(`in the prompt block   ${pct(blockShare, answerable.length)}  (${blockShare}/${answerable.length} answers are among the newest 20 notes / 5 episodes)`);
  console.log(`floor ${DEFAULT_FLOOR} · misses at @1: ${main.misses.map((m) => JSON.stringify(m)).join(', ') || 'none'}`);
  console.log(`answered though unanswerable: ${main.falseHits.map((m) => JSON.stringify(m)).join(', ') || 'none'}`);
  console.log('\nfloor sweep (share of query weight an entry must match):');
  console.log('  floor  recall@1  recall@5  abstention  false-abstention');
  for (const floor of [0.2, 0.3, 0.4, 0.5, 0.6, 0.7]) {
    const s = score(floor);
    console.log(`  ${floor.toFixed(1)}    ${pct(s.at1, answerable.length).padStart(6)}    ${pct(s.at5, answerable.length).padStart(6)}    ${pct(s.abstained, unanswerable.length).padStart(6)}      ${pct(s.silent, answerable.length).padStart(6)}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
