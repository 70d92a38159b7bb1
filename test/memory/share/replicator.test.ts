/**
 * Fleet memory between quackds, in one process: each robot its own LMDB store in a tmp dir and
 * its own link to one real mosquitto. A note spreads, a forget spreads, a late joiner catches up
 * from the retained messages, what was saved while the broker was down arrives when it is back,
 * and concurrent supersedes of one topic converge to the same entry everywhere.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { connectAsync } from 'mqtt';
import type { BodyKey } from '../../../src/bodies/body.js';
import { connectMemoryLink, type MemoryLink } from '../../../src/mqtt/memory-link.js';
import { resolveMqttSettings } from '../../../src/mqtt/settings.js';
import { Replicator } from '../../../src/memory/share/replicator.js';
import { openMemoryStore, type MemoryStore } from '../../../src/memory/store.js';
import { noMosquitto, startMosquitto, type Mosquitto } from '../../helpers/mosquitto.js';
import { tempDir } from '../../helpers/tmp.js';

const KEY: BodyKey = 'microduck:sim2d';

interface Robot {
  readonly name: string;
  readonly store: MemoryStore;
  readonly rep: Replicator;
  readonly link: MemoryLink;
  texts(): string[];
  stop(): Promise<void>;
}

async function robot(name: string, broker: Mosquitto, episodes = false): Promise<Robot> {
  const dir = join(tempDir(`quackd-share-${name}-`), 'memory');
  const store = await openMemoryStore(dir, { writes: 'inline' });
  const settings = resolveMqttSettings({ url: broker.url }, dir);
  assert.ok(settings !== undefined);
  const link = connectMemoryLink(broker.url, settings, { reconnectMs: 100 });
  const rep = new Replicator(store, link, { root: 'quackd/memory', bodies: [{ key: KEY, robot: name }], episodes, statePath: join(dir, 'share-state.json'), pollMs: 50, settleMs: 300 });
  rep.start();
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await rep.stop();
    await link.close();
    await store.close();
  };
  after(stop);
  return { name, store, rep, link, texts: () => store.body(KEY).entries().map((e) => e.text).sort(), stop };
}

async function until(what: string, ok: () => boolean, ms = 2000): Promise<number> {
  const start = Date.now();
  while (!ok()) {
    if (Date.now() - start > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - start;
}

/** One mosquitto and two robots sharing through it, both online. */
async function twoRobots(): Promise<{ broker: Mosquitto; hall: Robot; desk: Robot }> {
  const broker = await startMosquitto();
  after(() => broker.stop());
  const hall = await robot('hall-duck', broker);
  const desk = await robot('desk-duck', broker);
  await until('both online', () => hall.link.online && desk.link.online);
  return { broker, hall, desk };
}

describe('fleet memory over a real mosquitto', { skip: noMosquitto }, () => {
  it('a note spreads within 2 s, marked with its robot; a forget spreads; a late joiner catches up', async () => {
    const { broker, hall, desk } = await twoRobots();
    const plan = await hall.store.body(KEY).remember({ text: 'the ball rolls under the radiator', source: 'model' });
    await until('the note on desk-duck', () => desk.texts().includes('the ball rolls under the radiator'));
    const copy = desk.store.body(KEY).entries()[0];
    assert.equal(copy?.id, plan.entry?.id);
    assert.equal(copy?.from, 'hall-duck');
    assert.equal(hall.store.body(KEY).entries()[0]?.from, undefined);

    await desk.store.body(KEY).remember({ text: 'the charger is under the desk', source: 'human' });
    await until('the charger note on hall-duck', () => hall.texts().includes('the charger is under the desk'));

    await desk.store.body(KEY).forget(plan.entry?.id ?? '');
    await until('the forget on hall-duck', () => !hall.texts().includes('the ball rolls under the radiator'));

    const late = await robot('late-duck', broker);
    await until('late-duck caught up', () => late.texts().join('|') === 'the charger is under the desk');
    assert.deepEqual(hall.texts(), desk.texts());
    assert.equal(hall.rep.status().dropped, 0);
  });

  it('a malformed or secret message is dropped, counted, never stored', async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    const hall = await robot('hall-duck', broker);
    await until('online', () => hall.link.online);
    const rogue = await connectAsync(broker.url);
    const entry = { v: 1, id: 'n-aaaaaa', kind: 'note', body: KEY, text: 'the password is hunter2hunter2 sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c', tags: [], source: 'model', created: new Date().toISOString(), time: new Date().toISOString(), history: [] };
    await rogue.publishAsync('quackd/memory/microduck/sim2d/n-aaaaaa', JSON.stringify({ v: 1, robot: 'rogue', entry }), { qos: 1 });
    await rogue.publishAsync('quackd/memory/microduck/sim2d/n-bbbbbb', '{not json', { qos: 1 });
    await rogue.endAsync();
    await until('both dropped', () => hall.rep.status().dropped === 2);
    assert.deepEqual(hall.texts(), []);
  });

  it('with the broker down, remember is as fast as ever and what was saved meanwhile arrives when it is back', async () => {
    const { broker, hall, desk } = await twoRobots();
    await hall.store.body(KEY).remember({ text: 'saved before the outage', source: 'model' });
    await until('the first note on desk-duck', () => desk.texts().length === 1);
    // A broker without persistence: its retained messages die with it.
    await broker.kill();
    await until('hall-duck sees the broker away', () => !hall.link.online);
    const t0 = performance.now();
    for (let i = 0; i < 5; i += 1) await hall.store.body(KEY).remember({ text: `saved while away ${i}`, source: 'model' });
    const perNote = (performance.now() - t0) / 5;
    assert.ok(perNote < 200, `a remember took ${perNote.toFixed(1)} ms with the broker away`);
    await until('pending counted', () => hall.rep.status().pending === 5);
    await broker.start();
    await until('the notes on desk-duck', () => desk.texts().length === 6, 5000);
    await until('nothing pending', () => hall.rep.status().pending === 0);
    // What the restarted broker forgot is told again: a robot joining now still gets all six.
    const late = await robot('late-duck', broker);
    await until('late-duck caught up', () => late.texts().length === 6, 5000);
  });

  it('concurrent supersedes of one topic converge to the same entry everywhere', async () => {
    const { broker, hall, desk } = await twoRobots();
    const view = (r: Robot) => JSON.stringify(r.store.body(KEY).entries().map((e) => [e.id, e.text, e.time]));
    for (let i = 0; i < 20; i += 1) {
      await Promise.all([hall.store.body(KEY).remember({ text: `the ball is at spot ${i}a`, topic: 'ball', source: 'model' }), desk.store.body(KEY).remember({ text: `the ball is at spot ${i}b`, topic: 'ball', source: 'model' })]);
      await until(`round ${i} converged`, () => view(hall) === view(desk) && hall.store.body(KEY).entries().length === 1 && hall.rep.status().pending === 0 && desk.rep.status().pending === 0, 5000);
    }
    // A late joiner agrees from the retained messages alone.
    const late = await robot('late-duck', broker);
    await until('late-duck agrees', () => view(late) === view(hall), 5000);
  });

  it('episodes stay with the robot that ran, unless share: episodes', async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    const [hall, desk, hallE, deskE] = await Promise.all([robot('hall', broker), robot('desk', broker), robot('hall-e', broker, true), robot('desk-e', broker, true)]);
    await until('all online', () => [hall, desk, hallE, deskE].every((r) => r.link.online));
    await hallE.store.body(KEY).addEpisode({ text: 'find-and-kick: success in 4 steps' });
    await hallE.store.body(KEY).remember({ text: 'a note goes everywhere', source: 'model' });
    await until('the episode on desk-e, which shares episodes', () => deskE.texts().includes('find-and-kick: success in 4 steps'));
    await until('the note on desk', () => desk.texts().includes('a note goes everywhere'));
    // desk does not take the episode, and hall does not publish its own.
    await hall.store.body(KEY).addEpisode({ text: 'hello-world: success' });
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(desk.texts(), ['a note goes everywhere']);
    assert.ok(!deskE.texts().includes('hello-world: success'));
  });
});
