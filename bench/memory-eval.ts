/**
 * `npm run eval:memory`: an offline check of recall, no LLM. For each set in bench/memory-eval/
 * it grows one robot's memory in a real LMDB store (notes spread over time among routine episodes,
 * a few superseded by topic, the oldest episodes evicted past the cap), asks the set's questions
 * and prints recall@1, recall@5, the abstention rate on questions nothing answers, recall@5 on the
 * questions that hinge on one uncommon word or word form, and the share of answers the prompt
 * block (the newest 20 notes and 5 episodes) already holds. A floor sweep argues the default.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BODY_CAP, type Entry } from '../src/memory/entry.js';
import { DEFAULT_COVER, DEFAULT_FLOOR, rank } from '../src/memory/recall.js';
import { selectForPrompt } from '../src/memory/render.js';
import { openMemoryStore } from '../src/memory/store.js';
import { householdSet } from './memory-eval/household.js';
import { HOLDOUT_QUESTIONS } from './memory-eval/holdout.js';
import { seedSet } from './memory-eval/seed.js';
import type { EvalSet } from './memory-eval/set.js';

const BODY = 'microduck:sim2d';
const SWEEP = [0.5, 0.6, 0.7, 0.8, 0.9];
const COVERS = [0.3, 0.4, 0.5];

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/** The set's memory as the store keeps it, and the store ids of its fixtures. */
async function grow(set: EvalSet, dir: string): Promise<{ entries: Entry[]; ids: Map<string, string> }> {
  let clock = Date.parse('2026-01-01T08:00:00Z');
  const store = await openMemoryStore(join(dir, set.name), { now: () => new Date((clock += 60_000)) });
  try {
    const memory = store.body(BODY);
    const ids = new Map<string, string>();
    const rand = lcg(7);
    const noteAt = new Map<number, EvalSet['notes'][number][]>();
    for (const [k, n] of set.notes.entries()) {
      const at = Math.round(((k + 0.5) * set.routineEpisodes) / set.notes.length);
      noteAt.set(at, [...(noteAt.get(at) ?? []), n]);
    }
    for (let i = 0; i < set.routineEpisodes; i += 1) {
      // A distinctive episode takes the place of that routine one.
      const special = set.specialEpisodes.find((e) => e.at === i);
      const ep = await memory.addEpisode({ text: special?.text ?? set.routineEpisode(i, rand), run: `run-${i}` });
      if (special !== undefined && ep.entry !== undefined) ids.set(special.id, ep.entry.id);
      for (const note of noteAt.get(i) ?? []) {
        const plan = await memory.remember({ text: note.text, source: i % 3 === 0 ? 'human' : 'model', ...(note.topic !== undefined ? { topic: note.topic } : {}), ...(note.tags !== undefined ? { tags: note.tags } : {}) });
        if (plan.entry !== undefined) ids.set(note.id, plan.entry.id);
      }
    }
    return { entries: memory.entries(), ids };
  } finally {
    await store.close();
  }
}

const pct = (n: number, d: number) => (d === 0 ? '  n/a' : `${((100 * n) / d).toFixed(1)}%`);

function evaluate(set: EvalSet, entries: readonly Entry[], ids: ReadonlyMap<string, string>) {
  const stored = new Set(entries.map((e) => e.id));
  const answerable = set.questions.filter((q) => q.answers.length > 0);
  const unanswerable = set.questions.filter((q) => q.answers.length === 0);
  for (const q of answerable) for (const a of q.answers) if (!stored.has(ids.get(a) ?? '')) throw new Error(`${set.name}: fixture ${a} was evicted or superseded`);
  return (floor: number, cover = DEFAULT_COVER) => {
    let at1 = 0;
    let at5 = 0;
    let hinge5 = 0;
    let silent = 0;
    let abstained = 0;
    const misses: string[] = [];
    for (const q of answerable) {
      const want = new Set(q.answers.map((a) => ids.get(a)));
      const hits = rank(entries, q.q, { limit: 5, floor, cover });
      if (hits.length === 0) silent += 1;
      const answers = (h: { ids: readonly string[] }) => h.ids.some((id) => want.has(id));
      if (hits[0] !== undefined && answers(hits[0])) at1 += 1;
      if (hits.some(answers)) {
        at5 += 1;
        if (q.h === true) hinge5 += 1;
      } else misses.push(q.q);
    }
    const falseHits: string[] = [];
    for (const q of unanswerable) {
      if (rank(entries, q.q, { limit: 5, floor, cover }).length === 0) abstained += 1;
      else falseHits.push(q.q);
    }
    return { answerable, unanswerable, hinges: answerable.filter((q) => q.h === true).length, at1, at5, hinge5, silent, abstained, misses, falseHits };
  };
}

const dir = mkdtempSync(join(tmpdir(), 'quackd-eval-'));
try {
  // The held-out questions ask the household memory; nothing was tuned on them (holdout.ts).
  const holdout: EvalSet = { ...householdSet, name: 'household held-out', questions: HOLDOUT_QUESTIONS };
  for (const set of [householdSet, holdout, seedSet]) {
    const { entries, ids } = await grow(set, dir);
    const score = evaluate(set, entries, ids);
    const s = score(DEFAULT_FLOOR);
    const sel = selectForPrompt(entries);
    const inBlock = new Set([...sel.notes, ...sel.episodes].map((e) => e.id));
    const blockShare = s.answerable.filter((q) => q.answers.some((a) => inBlock.has(ids.get(a) ?? ''))).length;
    const a = s.answerable.length;
    console.log(`\n${set.name} set · ${entries.length} entries (cap ${BODY_CAP}): ${sel.totalNotes} notes, ${sel.totalEpisodes} episodes · ${a} answerable (${s.hinges} hinge on a rare word or word form) + ${s.unanswerable.length} unanswerable questions`);
    console.log(`recall@1              ${pct(s.at1, a)}  (${s.at1}/${a})`);
    console.log(`recall@5              ${pct(s.at5, a)}  (${s.at5}/${a})`);
    console.log(`abstention rate       ${pct(s.abstained, s.unanswerable.length)}  (${s.abstained}/${s.unanswerable.length} unanswerable questions got no answer)`);
    console.log(`recall@5, hinge words ${pct(s.hinge5, s.hinges)}  (${s.hinge5}/${s.hinges})`);
    console.log(`false abstentions     ${pct(s.silent, a)}  (${s.silent}/${a} answerable questions got no answer)`);
    console.log(`in the prompt block   ${pct(blockShare, a)}  (${blockShare}/${a} answers are among the newest 20 notes / 5 episodes)`);
    console.log(`floor ${DEFAULT_FLOOR}, cover ${DEFAULT_COVER} · misses at @5: ${s.misses.map((m) => JSON.stringify(m)).join(', ') || 'none'}`);
    console.log(`answered though unanswerable: ${s.falseHits.map((m) => JSON.stringify(m)).join(', ') || 'none'}`);
    console.log('floor sweep (evidence of the best match, in perfect single-word matches; cover: share of the known query weight matched):');
    console.log('  floor cover  recall@1  recall@5  abstention  false-abstention');
    for (const floor of SWEEP) for (const cover of COVERS) {
      const f = score(floor, cover);
      console.log(`  ${floor.toFixed(1)}   ${cover.toFixed(1)}    ${pct(f.at1, a).padStart(6)}    ${pct(f.at5, a).padStart(6)}    ${pct(f.abstained, f.unanswerable.length).padStart(6)}      ${pct(f.silent, a).padStart(6)}`);
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
