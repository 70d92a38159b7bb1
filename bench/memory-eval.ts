/**
 * `npm run eval:memory`: an offline check of recall, no LLM. For each set in bench/memory-eval/
 * it grows one robot's memory in a real LMDB store (notes spread over time among routine episodes,
 * a few superseded by topic, the oldest episodes evicted past the cap), asks the set's questions
 * and prints recall@1, recall@5, the abstention rate on questions nothing answers, recall@5 on the
 * questions that hinge on one uncommon word or word form, and the share of answers the prompt
 * block (the newest 20 notes and 5 episodes) already holds. A floor sweep argues the default.
 *
 * With `--embeddings URL [--embeddings-model M]` (an OpenAI-compatible /v1/embeddings) it embeds
 * every entry and question and scores words and meaning fused (src/memory/fusion.ts) over a sweep
 * of similarity floors; `--calibrate` stores the floor that does best on the household set
 * (recall@5 plus abstention) for that model, where recall reads it (src/memory/embedding-settings.ts).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { dataDir } from '../src/config/paths.js';
import { openAiEmbedder, type EmbeddingSettings } from '../src/memory/embedder.js';
import { floorKey, floorsFile } from '../src/memory/embedding-settings.js';
import { DEFAULT_MEANING_WEIGHT, DEFAULT_SIMILARITY_FLOOR, fuse } from '../src/memory/fusion.js';
import { decodeVector } from '../src/memory/vectors.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BODY_CAP, type Entry } from '../src/memory/entry.js';
import { DEFAULT_COVER, DEFAULT_FLOOR, rank as rankWords } from '../src/memory/recall.js';
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

const args = parseArgs({ options: { embeddings: { type: 'string' }, 'embeddings-model': { type: 'string' }, calibrate: { type: 'boolean' } } }).values;
const embeddings: EmbeddingSettings | undefined =
  args.embeddings === undefined ? undefined : { baseUrl: args.embeddings, model: args['embeddings-model'] ?? 'nomic-embed-text', timeoutMs: 120_000, floor: DEFAULT_SIMILARITY_FLOOR, floorFrom: 'eval', weight: DEFAULT_MEANING_WEIGHT };
if (args.calibrate === true && embeddings === undefined) throw new Error('--calibrate needs --embeddings URL');
const SIMILARITY_SWEEP = Array.from({ length: 15 }, (_, i) => 0.2 + i * 0.05);

/** Everything the fused ranking needs: each entry's vector and each question's, by text. */
interface Vectors {
  readonly entries: Map<string, Float32Array>;
  readonly questions: Map<string, Float32Array>;
}

/** The set's memory as the store keeps it, and the store ids of its fixtures. */
async function grow(set: EvalSet, dir: string): Promise<{ entries: Entry[]; ids: Map<string, string>; vectors?: Vectors }> {
  let clock = Date.parse('2026-01-01T08:00:00Z');
  const store = await openMemoryStore(join(dir, set.name), { now: () => new Date((clock += 60_000)), ...(embeddings !== undefined ? { embeddings } : {}) });
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
    if (embeddings === undefined) return { entries: memory.entries(), ids };
    // Through the store's own path: entries embedded in batches, their vectors stored and read back.
    await memory.embedPending();
    const stored = new Map([...memory.vectors()].map(([id, v]) => [id, decodeVector(v.data)]));
    const qs = set.questions.map((q) => q.q);
    const got = await openAiEmbedder(embeddings).embed(qs);
    const questions = new Map<string, Float32Array>();
    for (const [i, q] of qs.entries()) {
      const v = got[i];
      if (v !== undefined) questions.set(q, v);
    }
    return { entries: memory.entries(), ids, vectors: { entries: stored, questions } };
  } finally {
    await store.close();
  }
}

const pct = (n: number, d: number) => (d === 0 ? '  n/a' : `${((100 * n) / d).toFixed(1)}%`);

function evaluate(set: EvalSet, entries: readonly Entry[], ids: ReadonlyMap<string, string>, vectors?: Vectors) {
  const stored = new Set(entries.map((e) => e.id));
  const answerable = set.questions.filter((q) => q.answers.length > 0);
  const unanswerable = set.questions.filter((q) => q.answers.length === 0);
  for (const q of answerable) for (const a of q.answers) if (!stored.has(ids.get(a) ?? '')) throw new Error(`${set.name}: fixture ${a} was evicted or superseded`);
  return (floor: number, cover = DEFAULT_COVER, similarityFloor?: number) => {
    const rank = (es: readonly Entry[], q: string, o: { limit: number; floor: number; cover: number }) => {
      const qv = vectors?.questions.get(q);
      return similarityFloor === undefined || vectors === undefined || qv === undefined ? rankWords(es, q, o) : fuse(es, q, vectors.entries, qv, { ...o, similarityFloor });
    };
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

let calibrated: number | undefined;
const dir = mkdtempSync(join(tmpdir(), 'quackd-eval-'));
try {
  // The held-out questions ask the household memory; nothing was tuned on them (holdout.ts).
  const holdout: EvalSet = { ...householdSet, name: 'household held-out', questions: HOLDOUT_QUESTIONS };
  for (const set of [householdSet, holdout, seedSet]) {
    const { entries, ids, vectors } = await grow(set, dir);
    const score = evaluate(set, entries, ids, vectors);
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
    if (embeddings !== undefined && vectors !== undefined) {
      console.log(`words + meaning (${embeddings.model} at ${embeddings.baseUrl}; ${vectors.entries.size}/${entries.length} entries embedded; RRF, BM25 floor ${DEFAULT_FLOOR}, cover ${DEFAULT_COVER}):`);
      console.log('  similarity floor  recall@1  recall@5  abstention  false-abstention');
      let best: { floor: number; merit: number } | undefined;
      for (const sf of SIMILARITY_SWEEP) {
        const f = score(DEFAULT_FLOOR, DEFAULT_COVER, sf);
        const merit = f.at5 / a + (f.unanswerable.length > 0 ? f.abstained / f.unanswerable.length : 0);
        if (best === undefined || merit > best.merit) best = { floor: sf, merit };
        console.log(`  ${sf.toFixed(2)}              ${pct(f.at1, a).padStart(6)}    ${pct(f.at5, a).padStart(6)}    ${pct(f.abstained, f.unanswerable.length).padStart(6)}      ${pct(f.silent, a).padStart(6)}`);
      }
      // Calibrated on the household set only: the held-out questions stay unseen.
      if (best !== undefined && set === householdSet) {
        console.log(`best similarity floor on this set: ${best.floor.toFixed(2)} (recall@5 + abstention)`);
        if (args.calibrate === true) calibrated = best.floor;
      }
    }
  }
  if (calibrated !== undefined && embeddings !== undefined) {
    const file = floorsFile(dataDir(process.env));
    let all: Record<string, unknown> = {};
    try {
      all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch {
      // None yet.
    }
    all[floorKey(embeddings.model, embeddings.dims)] = { floor: Number(calibrated.toFixed(2)), server: embeddings.baseUrl, measured: new Date().toISOString() };
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
    console.log(`\nstored: similarity floor ${calibrated.toFixed(2)} for ${embeddings.model} in ${file}`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
