/**
 * A robot's memory as the service's front doors tend it (MCP's robot_recall, robot_remember,
 * robot_forget and its memory resource): one body's entries in the runtime's shared store, under
 * the rules every path obeys (src/memory/rules.ts). A refused note is an InputError, a store that
 * fails a RuntimeError, each one line that never quotes the note.
 */
import type { BodyKey } from '../bodies/body.js';
import { InputError, RuntimeError } from '../errors.js';
import { MemoryRefusal } from '../memory/entry.js';
import { renderPromptBlock, summaryLine } from '../memory/render.js';
import { MemoryBusy, StoreError, type BodyMemory, type MemoryStore } from '../memory/store.js';
import type { MemoryAnswer, MemoryAsk } from './api.js';

export async function askMemory(store: MemoryStore, key: BodyKey, ask: MemoryAsk): Promise<MemoryAnswer> {
  try {
    return await answer(store.body(key), ask);
  } catch (err) {
    if (err instanceof MemoryRefusal) throw new InputError(err.message.startsWith('not saved') ? err.message : `not saved: ${err.message}`);
    // Busy is not damage: another process (a run, an import) holds the store.
    if (err instanceof MemoryBusy) throw new RuntimeError(`memory store in ${store.dir}: ${err.message}; nothing was written`, 'try again when it is done');
    if (err instanceof StoreError) throw new RuntimeError(`memory store in ${store.dir}: ${err.message}`, 'quackd memory doctor checks it');
    throw err;
  }
}

async function answer(memory: BodyMemory, ask: MemoryAsk): Promise<MemoryAnswer> {
  const key = memory.key;
  switch (ask.action) {
    case 'prompt': {
      const selection = memory.promptSelection();
      return { action: 'prompt', key, prompt: renderPromptBlock(key, selection), summary: summaryLine(key, selection) };
    }
    case 'search':
      return { action: 'search', key, hits: (await memory.search(ask.query, ask.limit !== undefined ? { limit: ask.limit } : {})).hits.map((h) => ({ entry: h.entry, score: h.score })) };
    case 'remember': {
      const plan = await memory.remember({ text: ask.text, source: 'mcp', tags: ask.tags ?? [], ...(ask.topic !== undefined ? { topic: ask.topic } : {}) });
      return { action: 'remember', key, outcome: plan.action, ...(plan.entry !== undefined ? { entry: plan.entry } : {}), ...(plan.replaced !== undefined ? { replaced: plan.replaced } : {}), evicted: plan.evicted.map((e) => e.id) };
    }
    case 'forget': {
      const forgotten = await memory.forget(ask.id);
      return { action: 'forget', key, ...(forgotten !== undefined ? { forgotten } : {}) };
    }
    case 'entries':
      return { action: 'entries', key, entries: memory.entries() };
  }
}
