/** Fleet memory's merge rules and wire codec, as pure functions: every robot ends with the same entries. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Entry } from '../../../src/memory/entry.js';
import { planMerge, type Arrival } from '../../../src/memory/share/merge.js';
import { MAX_MESSAGE_BYTES, decodeMessage, encodeEntry, encodeGone, topicId } from '../../../src/memory/share/wire.js';

const KEY = 'microduck:sim2d';
const T = (m: number) => new Date(Date.UTC(2026, 11, 2, 10, m)).toISOString();

function note(id: string, text: string, minute: number, extra: Partial<Entry> = {}): Entry {
  return { v: 1, id, kind: 'note', body: KEY, text, tags: [], source: 'model', created: T(minute), time: T(minute), seq: 1, history: [], ...extra };
}

function apply(entries: Entry[], arrival: Arrival, cap?: number): Entry[] {
  const plan = planMerge(entries, arrival, cap);
  const put = new Set(plan.put.map((e) => e.id));
  return [...entries.filter((e) => !plan.del.includes(e.id) && !put.has(e.id)), ...plan.put];
}

const got = (e: Entry): Arrival => ({ kind: 'entry', entry: e });
const view = (m: Entry[]) => m.map((e) => `${e.id}:${e.text}@${e.time}`).sort();

describe('merge rules', () => {
  const cases: { name: string; held: Entry[]; arrival: Arrival; outcome: string; after: string[] }[] = [
    { name: 'a new entry is added', held: [], arrival: got(note('n-a', 'ball under radiator', 1)), outcome: 'applied', after: [`n-a:ball under radiator@${T(1)}`] },
    { name: 'the same version again changes nothing', held: [note('n-a', 'x', 1)], arrival: got(note('n-a', 'x', 1)), outcome: 'same', after: [`n-a:x@${T(1)}`] },
    { name: 'a newer version of the id replaces it', held: [note('n-a', 'x', 1)], arrival: got(note('n-a', 'y', 2)), outcome: 'applied', after: [`n-a:y@${T(2)}`] },
    { name: 'an older version of the id is stale (said again)', held: [note('n-a', 'y', 2)], arrival: got(note('n-a', 'x', 1)), outcome: 'stale', after: [`n-a:y@${T(2)}`] },
    { name: 'the same text under another id refreshes the smaller id to the newer time', held: [note('n-a', 'x', 1)], arrival: got(note('n-b', 'x', 3)), outcome: 'applied', after: [`n-a:x@${T(3)}`] },
    { name: 'the same text under a smaller id takes its place', held: [note('n-b', 'x', 3)], arrival: got(note('n-a', 'x', 1)), outcome: 'applied', after: [`n-a:x@${T(3)}`] },
    { name: 'the same topic: the newer time supersedes', held: [note('n-a', 'x', 1, { topic: 'ball' })], arrival: got(note('n-b', 'y', 2, { topic: 'ball' })), outcome: 'applied', after: [`n-b:y@${T(2)}`] },
    { name: 'the same topic: an older note loses', held: [note('n-a', 'x', 2, { topic: 'ball' })], arrival: got(note('n-b', 'y', 1, { topic: 'ball' })), outcome: 'lost', after: [`n-a:x@${T(2)}`] },
    { name: 'the same topic at the same time: the smaller id wins', held: [note('n-b', 'x', 1, { topic: 'ball' })], arrival: got(note('n-a', 'y', 1, { topic: 'ball' })), outcome: 'applied', after: [`n-a:y@${T(1)}`] },
    { name: 'a tombstone removes an older entry', held: [note('n-a', 'x', 1)], arrival: { kind: 'gone', id: 'n-a', time: T(2) }, outcome: 'applied', after: [] },
    { name: 'a tombstone loses to a newer entry', held: [note('n-a', 'x', 3)], arrival: { kind: 'gone', id: 'n-a', time: T(2) }, outcome: 'stale', after: [`n-a:x@${T(3)}`] },
    { name: 'a tombstone of an unknown id changes nothing', held: [], arrival: { kind: 'gone', id: 'n-a', time: T(2) }, outcome: 'same', after: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(planMerge(c.held, c.arrival).outcome, c.outcome);
      assert.deepEqual(view(apply(c.held, c.arrival)), c.after);
    });
  }

  it('the cap is applied after merging: the oldest goes', () => {
    const held = [note('n-1', 'one', 1, { seq: 1 }), note('n-2', 'two', 2, { seq: 2 })];
    assert.deepEqual(view(apply(held, got(note('n-3', 'three', 3)), 2)), [`n-2:two@${T(2)}`, `n-3:three@${T(3)}`]);
  });

  it('concurrent supersedes of one topic converge whatever order they arrive in', () => {
    for (let i = 0; i < 50; i += 1) {
      const a = note(`n-${(i * 7919).toString(36)}`, `a${i}`, i % 3, { topic: 'ball' });
      const b = note(`n-${(i * 104729).toString(36)}`, `b${i}`, (i * 2) % 3, { topic: 'ball' });
      const one = apply(apply([], got(a)), got(b));
      const two = apply(apply([], got(b)), got(a));
      assert.deepEqual(view(one), view(two));
      assert.equal(one.length, 1);
    }
  });
});

describe('wire codec', () => {
  const e = note('n-a', 'the ball rolls under the radiator', 1, { seq: 9, topic: 'ball' });

  it('an entry round-trips, stamped with the robot that wrote it and without its local order', () => {
    const d = decodeMessage(KEY, 'n-a', Buffer.from(encodeEntry(e, 'hall-duck')), 'desk-duck');
    assert.ok(d.ok);
    assert.equal(d.message.robot, 'hall-duck');
    assert.ok(d.message.arrival.kind === 'entry');
    assert.equal(d.message.arrival.entry.from, 'hall-duck');
    assert.equal(d.message.arrival.entry.text, e.text);
    // Our own message back: no `from`.
    const own = decodeMessage(KEY, 'n-a', Buffer.from(encodeEntry(e, 'hall-duck')), 'hall-duck');
    assert.ok(own.ok && own.message.arrival.kind === 'entry' && own.message.arrival.entry.from === undefined);
  });

  it('a tombstone round-trips', () => {
    const d = decodeMessage(KEY, 'n-a', Buffer.from(encodeGone('n-a', T(2), 'hall-duck')), 'x');
    assert.deepEqual(d.ok && d.message.arrival, { kind: 'gone', id: 'n-a', time: T(2) });
  });

  const bad: [string, Buffer, string, string][] = [
    ['not JSON', Buffer.from('{nope'), 'n-a', 'malformed'],
    ['oversized', Buffer.alloc(MAX_MESSAGE_BYTES + 1, 0x20), 'n-a', 'oversized'],
    ['on another id’s topic', Buffer.from(encodeEntry(e, 'hall-duck')), 'n-b', 'malformed'],
    ['of another body', Buffer.from(encodeEntry({ ...e, body: 'reachy-mini:mock' }, 'hall-duck')), 'n-a', 'malformed'],
    ['a secret', Buffer.from(encodeEntry({ ...e, text: 'the wifi key is sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c' }, 'hall-duck')), 'n-a', 'secret'],
    ['too long', Buffer.from(encodeEntry({ ...e, text: 'x'.repeat(301) }, 'hall-duck')), 'n-a', 'refused'],
    ['a robot name with a slash', Buffer.from(encodeEntry(e, 'a/b')), 'n-a', 'malformed'],
    ['no version', Buffer.from(JSON.stringify({ robot: 'x', entry: e })), 'n-a', 'malformed'],
    ['a cleared retained message', Buffer.alloc(0), 'n-a', 'empty'],
  ];
  for (const [name, payload, id, reason] of bad) {
    it(`drops ${name}`, () => {
      const d = decodeMessage(KEY, id, payload, 'desk-duck');
      assert.equal(d.ok ? 'ok' : d.reason, reason);
    });
  }

  it('topics: one per entry under the body', () => {
    assert.equal(topicId('quackd/memory', KEY, 'quackd/memory/microduck/sim2d/n-a'), 'n-a');
    assert.equal(topicId('quackd/memory', KEY, 'quackd/memory/microduck/sim2d/a/b'), undefined);
    assert.equal(topicId('quackd/memory', KEY, 'quackd/memory/reachy-mini/mock/n-a'), undefined);
  });
});
