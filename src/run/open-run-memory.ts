/**
 * The RunMemory a run gets (src/pilot/run-memory.ts), backed by the LMDB store, and the factory
 * the run calls. The factory never throws: a store that cannot be opened (permissions,
 * corruption, disk full) yields no memory and a one-line notice, and the run goes on without
 * memory and without `remember`. Nothing here fails a run: a write that fails becomes a verb
 * result or a transcript event.
 */
import type { BodyKey, VerbResult } from '../bodies/body.js';
import { logger } from '../log.js';
import type { EpisodeFacts, MemoryEvent, RunMemory } from '../pilot/run-memory.js';
import { recall, recallInput } from '../verbs/recall.js';
import { remember, rememberInput } from '../verbs/remember.js';
import type { Verb } from '../verbs/verb.js';
import { MAX_TAGS, MemoryRefusal, NOTE_MAX_CHARS, charCount } from '../memory/entry.js';
import { FLUSH_TAG, recallReply, renderPromptBlock, summaryLine, type PromptSelection } from '../memory/render.js';
import { planNote, validateText } from '../memory/rules.js';
import { secretReason } from '../memory/secret-check.js';
import { MemoryBusy, StoreError, openMemoryStore, type BodyMemory, type MemoryStore } from '../memory/store.js';

/**
 * How long a run's writes may wait for another process's hold on the store. The pilot's
 * `remember` is answered "memory busy" soon, so the run goes on; the episode, written after the
 * body has stopped, may wait longer.
 */
export const RUN_WAIT_MS = { remember: 2_000, episode: 10_000 } as const;
/** Hits a `recall` tells the pilot: enough for near-duplicates, short enough for an observation. */
export const RECALL_HITS = 3;

export interface OpenRunMemoryOptions {
  readonly body: BodyKey;
  /** The memory directory (`memoryDir(flag, env)` in src/config/paths.ts). */
  readonly dir: string;
  /** The duck's name; the episode falls back to it when the facts carry none. */
  readonly duck: string;
  /** The duck's task text: the prompt's notes are ranked by it where its vector is stored (src/memory/task-ranking.ts). */
  readonly task?: string;
  readonly now?: () => Date;
}

export interface OpenedRunMemory {
  readonly memory?: RunMemory;
  /** One line for the person: why memory is off, or what a first open imported. */
  readonly notice?: string;
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

export async function openRunMemory(options: OpenRunMemoryOptions): Promise<OpenedRunMemory> {
  let store: MemoryStore | undefined;
  try {
    store = await openMemoryStore(options.dir, options.now !== undefined ? { now: options.now } : {});
    const warnings = await store.importLegacy();
    const run = runMemoryFor(store, options.body, options.duck, { ownsStore: true, ...(options.task !== undefined ? { task: options.task } : {}), ...(options.now !== undefined ? { now: options.now } : {}) });
    return warnings.length > 0 ? { memory: run, notice: `memory: imported legacy notes; ${warnings.join('; ')}` } : { memory: run };
  } catch (err) {
    await store?.close().catch(() => undefined);
    // The run prints the notice; the log line is for --debug.
    logger('memory').info({ dir: options.dir, err: errorText(err) }, 'memory store unavailable');
    return { notice: `memory: off for this run — the store in ${options.dir} cannot be opened (${errorText(err)})` };
  }
}

/**
 * A run's memory on a store someone else keeps open (the runtime's, shared by its runs): closing
 * the run memory leaves the store open unless `ownsStore`.
 */
export function runMemoryFor(store: MemoryStore, body: BodyKey, duck: string, options: { ownsStore?: boolean; task?: string; now?: () => Date } = {}): RunMemory {
  const memory = store.body(body);
  return new LmdbRunMemory(store, memory, duck, memory.promptSelection(undefined, undefined, options.task), options.task, options.ownsStore === true, options.now ?? (() => new Date()));
}

/** The episode line: `find-and-kick: success — ball displaced 0.49 m (4 steps) · search_scan: …; kick: …`. */
export function composeEpisode(facts: EpisodeFacts, duck: string): string {
  // The pilot wrote the reason: one that looks like a secret is withheld, not the whole episode.
  const reason = secretReason(facts.reason) === undefined ? facts.reason : '(reason withheld: it looked like a secret)';
  const head = `${facts.duck || duck}: ${facts.outcome} — ${reason} (${facts.steps} step${facts.steps === 1 ? '' : 's'})`.replace(/\s+/g, ' ').trim();
  const clip = (s: string, n: number) => (charCount(s) <= n ? s : `${[...s].slice(0, n - 1).join('')}…`);
  let text = clip(head, NOTE_MAX_CHARS);
  const parts: string[] = [];
  for (const r of facts.results) {
    const part = r.replace(/\s+/g, ' ').trim();
    // A repeated result (walk, walk, walk) says nothing new; a secret-looking one is dropped.
    if (part === '' || part === parts[parts.length - 1] || secretReason(part) !== undefined) continue;
    parts.push(part);
  }
  // The end of a run is what it concluded (the kick, the declaration) and its start is how it
  // began (where the ball was found): keep those first, then fill backwards from the end.
  const preference = parts.length === 0 ? [] : [parts.length - 1, 0, ...parts.map((_, i) => parts.length - 2 - i).filter((i) => i > 0)];
  const kept = new Set<number>();
  const render = (set: ReadonlySet<number>) => [...set].sort((a, b) => a - b).map((i) => parts[i]).join('; ');
  for (const i of preference) {
    const trial = new Set(kept).add(i);
    if (charCount(`${text} · ${render(trial)}`) <= NOTE_MAX_CHARS) kept.add(i);
  }
  if (kept.size > 0) text = `${text} · ${render(kept)}`;
  return text;
}

class LmdbRunMemory implements RunMemory {
  readonly promptBlock: string;
  readonly summaryLine: string;
  readonly verbs: readonly Verb[] = [remember, recall];
  private closed = false;

  constructor(
    private readonly store: MemoryStore,
    private readonly memory: BodyMemory,
    private readonly duck: string,
    selection: PromptSelection,
    private readonly task: string | undefined,
    private readonly ownsStore: boolean,
    private readonly now: () => Date,
  ) {
    this.promptBlock = renderPromptBlock(memory.key, selection);
    this.summaryLine = summaryLine(memory.key, selection);
  }

  async handle(verb: string, args: Record<string, unknown>, ctx: { runId: string; dryRun: boolean; flush?: boolean }): Promise<{ result: VerbResult; events: readonly MemoryEvent[] }> {
    if (verb === recall.name) return this.recall(args);
    if (verb !== remember.name) return { result: { ok: false, summary: `${verb} is not a memory verb` }, events: [] };
    const parsed = rememberInput.safeParse(args);
    if (!parsed.success) return { result: { ok: false, summary: `not saved: ${parsed.error.issues[0]?.message ?? 'bad arguments'}` }, events: [] };
    const { text, topic } = parsed.data;
    // A flush note says so in its tags, which every reader shows (#flush); it takes the last tag's place if it must.
    const tags = ctx.flush === true ? [...(parsed.data.tags ?? []).filter((t) => t !== FLUSH_TAG).slice(0, MAX_TAGS - 1), FLUSH_TAG] : parsed.data.tags;
    const flush = ctx.flush === true ? { flush: true } : {};
    try {
      const clean = validateText(text);
      if (ctx.dryRun) {
        // Planned against an empty memory and dropped: a dry run refuses what a real run would.
        planNote([], { text, source: 'model', ...(tags !== undefined ? { tags } : {}), ...(topic !== undefined ? { topic } : {}) }, { body: this.memory.key, now: new Date().toISOString() });
        return {
          result: { ok: true, summary: `would remember for future runs: ${clean} — not saved: dry run` },
          events: [{ action: 'remember', detail: { saved: false, reason: 'dry run', text: clean, ...flush } }],
        };
      }
      const plan = await this.memory.remember(
        { text: clean, source: 'model', run: ctx.runId, ...(tags !== undefined ? { tags } : {}), ...(topic !== undefined ? { topic } : {}) },
        { waitMs: RUN_WAIT_MS.remember },
      );
      const entry = plan.entry;
      const note = plan.action === 'refreshed' ? ' (already known; refreshed)' : plan.replaced !== undefined ? ` (replaces: ${plan.replaced})` : '';
      return {
        result: { ok: true, summary: `remembered for future runs: ${clean}${note}`, data: { id: entry?.id, action: plan.action } },
        events: [
          {
            action: 'remember',
            detail: {
              saved: true,
              id: entry?.id,
              outcome: plan.action,
              text: clean,
              tags: entry?.tags ?? [],
              ...(entry?.topic !== undefined ? { topic: entry.topic } : {}),
              ...(plan.replaced !== undefined ? { replaced: plan.replaced } : {}),
              ...(plan.evicted.length > 0 ? { evicted: plan.evicted.map((e) => e.id) } : {}),
              // Where the note's text goes next, to be embedded (src/memory/meaning.ts).
              ...(this.store.embeddings !== undefined ? { embeddings: this.store.embeddings.server } : {}),
              ...flush,
            },
          },
        ],
      };
    } catch (err) {
      if (err instanceof MemoryRefusal) {
        // The refusal names the rule, never the text: a secret must not reach the transcript.
        return { result: { ok: false, summary: err.message.startsWith('not saved') ? err.message : `not saved: ${err.message}` }, events: [{ action: 'refused', detail: { verb: 'remember', rule: err.code } }] };
      }
      logger('memory').warn({ err: errorText(err) }, 'remember failed');
      // Busy is not a failure of the store: the pilot may try again later in the run.
      const summary = err instanceof MemoryBusy ? `not saved: ${err.message}; try again later` : `not saved: the memory store failed (${errorText(err)})`;
      return { result: { ok: false, summary }, events: [{ action: 'error', detail: { verb: 'remember', message: errorText(err) } }] };
    }
  }

  /** Reads only (vectors aside), so a dry run recalls as a real one does. */
  private async recall(args: Record<string, unknown>): Promise<{ result: VerbResult; events: readonly MemoryEvent[] }> {
    const parsed = recallInput.safeParse(args);
    if (!parsed.success) return { result: { ok: false, summary: `nothing recalled: ${parsed.error.issues[0]?.message ?? 'bad arguments'}` }, events: [] };
    const { query } = parsed.data;
    try {
      const { hits, meaning } = await this.memory.search(query, { limit: RECALL_HITS });
      // The transcript names the embedding server the question went to, and whether it answered.
      const byMeaning = meaning === undefined ? {} : { embeddings: { server: meaning.server, model: meaning.model, used: meaning.used, ...(meaning.problem !== undefined ? { problem: meaning.problem } : {}) } };
      return {
        result: { ok: true, summary: recallReply(query, hits, this.now()), data: { hits: hits.length } },
        events: [{ action: 'recall', detail: { query, hits: hits.map((h) => ({ id: h.entry.id, kind: h.entry.kind, ...(h.count > 1 ? { count: h.count } : {}), score: Number(h.score.toFixed(3)), ...(h.similarity !== undefined ? { similarity: Number(h.similarity.toFixed(3)) } : {}) })), ...byMeaning } }],
      };
    } catch (err) {
      logger('memory').warn({ err: errorText(err) }, 'recall failed');
      return { result: { ok: false, summary: `nothing recalled: the memory store failed (${errorText(err)})` }, events: [{ action: 'error', detail: { verb: 'recall', message: errorText(err) } }] };
    }
  }

  async writeEpisode(facts: EpisodeFacts): Promise<MemoryEvent | undefined> {
    // The task's vector, for the next run's prompt: in the background, once per task and model.
    if (this.task !== undefined) this.store.embedTask(this.task);
    try {
      const plan = await this.memory.addEpisode({ text: composeEpisode(facts, this.duck), run: facts.runId }, { waitMs: RUN_WAIT_MS.episode });
      if (plan.entry === undefined) return { action: 'episode', detail: { saved: false, reason: `memory of ${this.memory.key} is full of notes (${plan.evicted.length} over the cap)` } };
      // Where the episode (and the task, once) goes next, to be embedded.
      const embeddings = this.store.embeddings !== undefined ? { embeddings: this.store.embeddings.server } : {};
      return { action: 'episode', detail: { saved: true, id: plan.entry.id, text: plan.entry.text, ...(plan.evicted.length > 0 ? { evicted: plan.evicted.map((e) => e.id) } : {}), ...embeddings } };
    } catch (err) {
      const message = err instanceof MemoryRefusal ? err.message : errorText(err);
      if (err instanceof StoreError) logger('memory').warn({ err: message }, 'episode not written');
      return { action: 'error', detail: { what: 'episode', message } };
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsStore) await this.store.close();
  }
}
