/**
 * A child process for the multi-process memory tests. Usage: node --import tsx memory-child.ts MODE DIR …
 *   write DIR PREFIX COUNT [SHARED]  writes COUNT notes through the store, printing `ack <id>` after each
 *                                     write resolves (synchronously, so a SIGKILL cannot eat a printed ack)
 *   serve DIR [store|engine]          a long-lived holder of the store: stdin `w TEXT` writes (prints `ack`),
 *                                     `r` prints `entries a|b|…`, `q` exits. `engine` drives the bare LMDB
 *                                     engine without the store guard: the code quackd ran before the guard
 *   once DIR TEXT [store|engine]      one write, then exit
 *   show DIR [store|engine]           opens read-only, prints `entries …`, exits
 *   hold DIR MS                        takes the store guard, prints `held`, lets go after MS ms
 */
import { writeSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { StoreGuard, guardAddress } from '../../src/memory/guard.js';
import { openLmdbStore } from '../../src/memory/lmdb-store.js';
import { openMemoryStore } from '../../src/memory/store.js';

const BODY = 'microduck:sim2d';
const [mode, dir = '', ...rest] = process.argv.slice(2);
const say = (line: string) => writeSync(1, `${line}\n`);

interface Handle {
  write(text: string): Promise<string>;
  texts(): string[];
  close(): Promise<void>;
}

async function open(kind: string | undefined, readOnly = false): Promise<Handle> {
  if (kind === 'engine') {
    const engine = openLmdbStore(dir, { readOnly });
    const body = engine.body(BODY);
    return {
      write: async (text) => Promise.resolve(body.remember({ text, source: 'model' }).entry?.id ?? '?'),
      texts: () => body.entries().map((e) => e.text),
      close: () => engine.close(),
    };
  }
  const store = await openMemoryStore(dir, { readOnly });
  const body = store.body(BODY);
  return {
    write: async (text) => (await body.remember({ text, source: 'model' })).entry?.id ?? '?',
    texts: () => body.entries().map((e) => e.text),
    close: () => store.close(),
  };
}

if (mode === 'write') {
  const [prefix = 'w', count = '0', shared] = rest;
  const h = await open('store');
  for (let i = 0; i < Number(count); i += 1) {
    say(`ack ${await h.write(`${prefix} note ${i}`)}`);
    if (shared !== undefined && i < Number(shared)) await h.write(`shared note ${i}`);
  }
  await h.close();
} else if (mode === 'serve') {
  const h = await open(rest[0]);
  say('ready');
  for await (const line of createInterface({ input: process.stdin })) {
    if (line.startsWith('w ')) say(`ack ${await h.write(line.slice(2))}`);
    else if (line === 'r') say(`entries ${h.texts().join('|')}`);
    // Exit without closing: after the defect a close can hang in lmdb-js, and a holder may die anyway.
    else if (line === 'q') process.exit(0);
  }
} else if (mode === 'once') {
  const h = await open(rest[1]);
  say(`ack ${await h.write(rest[0] ?? '')}`);
  await h.close();
} else if (mode === 'show') {
  const h = await open(rest[0], true);
  say(`entries ${h.texts().join('|')}`);
  await h.close();
} else if (mode === 'hold') {
  const guard = new StoreGuard(guardAddress(dir));
  await guard.acquire(10_000);
  say('held');
  await sleep(Number(rest[0] ?? '1000'));
  guard.release();
} else {
  throw new Error(`memory-child: unknown mode ${mode ?? ''}`);
}
