/**
 * Bench: fleet memory over a real mosquitto (issue 29). Two quackds' memory in this process, each
 * its own LMDB store (the writer worker, as a service writes) and its own link to the broker.
 * Measured: notes per second replicated (one robot remembers N notes back to back; until the
 * other holds all of them), against the same N remembered locally with no sharing; and the time a
 * robot joining late takes to catch up on 400 retained entries, against merging those 400 straight
 * into a store (one writer job, no broker).
 *
 *   node --import tsx bench/memory-share.ts [--notes N]     (N 200 by default)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BodyKey } from '../src/bodies/body.js';
import { BODY_CAP } from '../src/memory/entry.js';
import { Replicator } from '../src/memory/share/replicator.js';
import { openMemoryStore, type MemoryStore } from '../src/memory/store.js';
import { connectMemoryLink, type MemoryLink } from '../src/mqtt/memory-link.js';
import { resolveMqttSettings } from '../src/mqtt/settings.js';
import { noMosquitto, startMosquitto, type Mosquitto } from '../test/helpers/mosquitto.js';
import { fmt } from './_stats.js';

const KEY: BodyKey = 'microduck:sim2d';
const notesFlag = process.argv.indexOf('--notes');
const N = notesFlag > 0 ? Number(process.argv[notesFlag + 1]) : 200;

if (noMosquitto !== undefined) {
  console.log(`skipped: ${noMosquitto}`);
  process.exit(0);
}

const root = mkdtempSync(join(tmpdir(), 'quackd-bench-share-'));
const cleanup: (() => Promise<void>)[] = [];

async function robot(name: string, broker: Mosquitto): Promise<{ store: MemoryStore; link: MemoryLink }> {
  const dir = join(root, name);
  const store = await openMemoryStore(dir);
  const settings = resolveMqttSettings({ url: broker.url }, dir);
  if (settings === undefined) throw new Error('no settings');
  const link = connectMemoryLink(broker.url, settings);
  const rep = new Replicator(store, link, { root: 'quackd/memory', bodies: [{ key: KEY, robot: name }], episodes: false, statePath: join(dir, 'share-state.json') });
  rep.start();
  cleanup.push(async () => {
    await rep.stop();
    await link.close();
    await store.close();
  });
  while (!link.online) await new Promise((r) => setTimeout(r, 5));
  return { store, link };
}

async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setTimeout(r, 2));
}

const broker = await startMosquitto();
try {
  // Baseline: N notes remembered locally, no sharing.
  const alone = await openMemoryStore(join(root, 'alone'));
  let t = performance.now();
  for (let i = 0; i < N; i += 1) await alone.body(KEY).remember({ text: `baseline note ${i}`, source: 'model' });
  const localMs = performance.now() - t;

  // Sharing on, nobody else in this process (a peer here would share its writer worker and disk).
  const hall = await robot('hall', broker);
  t = performance.now();
  for (let i = 0; i < N; i += 1) await hall.store.body(KEY).remember({ text: `first note ${i}`, source: 'model' });
  const sharingMs = performance.now() - t;
  console.log(`remember: ${fmt(sharingMs / N)} ms a note with sharing on vs ${fmt(localMs / N)} ms without (ratio ${(sharingMs / localMs).toFixed(2)})`);

  const desk = await robot('desk', broker);
  await until(() => desk.store.body(KEY).entries().length === N);
  t = performance.now();
  for (let i = 0; i < N; i += 1) await hall.store.body(KEY).remember({ text: `shared note ${i}`, source: 'model' });
  const writtenMs = performance.now() - t;
  await until(() => desk.store.body(KEY).entries().length === 2 * N);
  const sharedMs = performance.now() - t;
  console.log(`replicated: ${N} notes remembered back to back, all on the other robot after ${fmt(sharedMs)} ms (the last ${fmt(sharedMs - writtenMs)} ms after it was saved)`);
  console.log(`  ${fmt((N / sharedMs) * 1000)} notes/s replicated · ${fmt((N / localMs) * 1000)} notes/s remembered locally · ratio ${(localMs / sharedMs).toFixed(2)} (both robots in one process: one writer, one disk)`);

  // Fill hall to the cap, then a robot joins late.
  for (let i = 2 * N; i < BODY_CAP; i += 1) await hall.store.body(KEY).remember({ text: `shared note ${i}`, source: 'model' });
  await until(() => desk.store.body(KEY).entries().length === BODY_CAP);
  t = performance.now();
  const late = await robot('late', broker);
  await until(() => late.store.body(KEY).entries().length === BODY_CAP);
  const catchUpMs = performance.now() - t;
  // Baseline: the same 400 merged straight in, one writer job.
  const straight = await openMemoryStore(join(root, 'straight'));
  const arrivals = hall.store.body(KEY).entries().map((entry) => ({ kind: 'entry' as const, entry }));
  t = performance.now();
  await straight.body(KEY).merge(arrivals);
  const mergeMs = performance.now() - t;
  console.log(`catch-up: ${BODY_CAP} retained entries in ${fmt(catchUpMs)} ms (connect included) · merged straight in ${fmt(mergeMs)} ms · ratio ${(catchUpMs / mergeMs).toFixed(1)}`);
  await alone.close();
  await straight.close();
} finally {
  for (const c of cleanup) await c().catch(() => undefined);
  await broker.stop();
  rmSync(root, { recursive: true, force: true });
}
