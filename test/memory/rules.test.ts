/** The memory rules as pure functions: dedupe-refresh, topic supersede, 300 characters, secrets, the cap. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BODY_CAP, MemoryRefusal, type Entry } from '../../src/memory/entry.js';
import { overCap, planEpisode, planNote, validateText } from '../../src/memory/rules.js';
import { secretReason } from '../../src/memory/secret-check.js';

const ctx = { body: 'microduck:sim2d', now: '2026-11-30T01:00:00.000Z' };

function apply(entries: Entry[], plan: { put: readonly Entry[]; del: readonly string[] }): Entry[] {
  const put = new Set(plan.put.map((e) => e.id));
  return [...entries.filter((e) => !plan.del.includes(e.id) && !put.has(e.id)), ...plan.put];
}

describe('dedupe-refresh', () => {
  it('the same text after trimming and folding whitespace refreshes the note and makes it newest', () => {
    let m: Entry[] = [];
    m = apply(m, planNote(m, { text: 'the ball is near the sofa', source: 'model' }, ctx));
    m = apply(m, planNote(m, { text: 'the charger is under the desk', source: 'human' }, ctx));
    const plan = planNote(m, { text: '  the ball   is near\tthe sofa ', source: 'human', tags: ['place'] }, { ...ctx, now: '2026-11-30T02:00:00.000Z' });
    assert.equal(plan.action, 'refreshed');
    m = apply(m, plan);
    assert.equal(m.length, 2);
    const ball = m.find((e) => e.text === 'the ball is near the sofa');
    assert.equal(ball?.seq, 3);
    assert.equal(ball?.time, '2026-11-30T02:00:00.000Z');
    assert.deepEqual(ball?.tags, ['place']);
    assert.equal(ball?.source, 'human');
  });

  it('episodes are records of distinct runs and are never deduped', () => {
    let m: Entry[] = [];
    m = apply(m, planEpisode(m, { text: 'find-and-kick: success' }, ctx));
    m = apply(m, planEpisode(m, { text: 'find-and-kick: success' }, ctx));
    assert.equal(m.length, 2);
  });
});

describe('topic supersede', () => {
  it('a new note with the same topic replaces the text and keeps the old one in history', () => {
    let m: Entry[] = [];
    m = apply(m, planNote(m, { text: 'the ball is in the kitchen', topic: 'Ball location', source: 'model' }, ctx));
    const plan = planNote(m, { text: 'the ball is in the hall', topic: 'ball  location', source: 'model' }, ctx);
    assert.equal(plan.action, 'superseded');
    assert.equal(plan.replaced, 'the ball is in the kitchen');
    m = apply(m, plan);
    assert.equal(m.length, 1);
    assert.equal(m[0]?.text, 'the ball is in the hall');
    assert.equal(m[0]?.topic, 'ball location');
    assert.deepEqual(m[0]?.history.map((h) => h.text), ['the ball is in the kitchen']);
  });

  it('a same-text note under no topic folds into the topic note instead of duplicating', () => {
    let m: Entry[] = [];
    m = apply(m, planNote(m, { text: 'the ball is in the hall', source: 'human' }, ctx));
    m = apply(m, planNote(m, { text: 'the ball is in the kitchen', topic: 'ball', source: 'model' }, ctx));
    m = apply(m, planNote(m, { text: 'the ball is in the hall', topic: 'ball', source: 'model' }, ctx));
    assert.deepEqual(m.map((e) => e.text), ['the ball is in the hall']);
  });
});

describe('validation', () => {
  it('refuses a note over 300 characters with the limit in the message', () => {
    assert.doesNotThrow(() => validateText('x'.repeat(300)));
    assert.throws(() => validateText('x'.repeat(301)), (e: unknown) => e instanceof MemoryRefusal && e.code === 'too-long' && /300 characters/.test(e.message));
    // Whitespace is folded before counting; characters are code points, not UTF-16 units.
    assert.doesNotThrow(() => validateText(`${'a '.repeat(149)}a${'   '.repeat(50)}`));
    assert.doesNotThrow(() => validateText('🦆'.repeat(300)));
  });

  it('refuses empty text', () => {
    assert.throws(() => validateText('   \n '), (e: unknown) => e instanceof MemoryRefusal && e.code === 'empty');
  });

  const secrets = [
    'the key is sk-ant-api03-abcdefghijklmnopqrstuv',
    'use sk-proj-ABCDEFGHIJKLMNOP1234',
    'token ghp_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
    'AKIAIOSFODNN7EXAMPLE is the aws key',
    '-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjE',
    'wifi password=hunter2',
    'the Password: correct horse',
    'api_key = 123456789abc',
    'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345',
    'connect to mqtt://duck:s3cret@broker.local',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    'hash 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    'client 550e8400-e29b-41d4-a716-446655440000',
  ];
  for (const s of secrets) {
    it(`refuses a secret without quoting it: ${s.slice(0, 24)}…`, () => {
      assert.notEqual(secretReason(s), undefined);
      assert.throws(() => validateText(s), (e: unknown) => e instanceof MemoryRefusal && e.code === 'secret' && !e.message.includes(s) && !e.message.includes(s.slice(-8)));
    });
  }

  it('refuses a secret anywhere a note stores words: tags, topic, run id, an imported id or history', () => {
    const refused = (f: () => unknown, where: string) =>
      assert.throws(f, (e: unknown) => e instanceof MemoryRefusal && e.code === 'secret' && e.message.includes(`, in ${where};`) && !/hunter2|ABCDEFGHIJ|EXAMPLE/i.test(e.message));
    refused(() => planNote([], { text: 'the router', tags: ['place', 'password=hunter2'], source: 'human' }, ctx), 'a tag');
    // Checked before tags are lower-cased: the AWS key pattern needs its capitals.
    refused(() => planNote([], { text: 'the router', tags: ['AKIAIOSFODNN7EXAMPLE'], source: 'human' }, ctx), 'a tag');
    refused(() => planNote([], { text: 'the router', topic: 'key sk-proj-ABCDEFGHIJKLMNOPQRST', source: 'model' }, ctx), 'its topic');
    refused(() => planNote([], { text: 'the router', run: 'password=hunter2', source: 'human' }, ctx), 'its run id');
    refused(() => planNote([], { text: 'the router', source: 'human' }, ctx, { id: 'sk-ant-ABCDEFGHIJKLMNOPQRST' }), 'its id');
    const history = [{ time: ctx.now, text: 'wifi password=hunter2', source: 'human' as const }];
    refused(() => planNote([], { text: 'the router', source: 'human' }, ctx, { history }), 'its history');
    refused(() => planEpisode([], { text: 'find-and-kick: success', tags: ['password=hunter2'] }, ctx), 'a tag');
    // quackd's own run ids are long slugs, not keys.
    const run = '20261130-012203-find-and-kick-the-ball-twice-2';
    assert.equal(planEpisode([], { text: 'find-and-kick: success', run }, ctx).entry?.run, run);
    assert.equal(planNote([], { text: 'the ball is red', run, source: 'model' }, ctx).entry?.run, run);
  });

  it('does not mistake ordinary robot notes for secrets', () => {
    for (const ok of [
      'the charger is under the desk',
      'kick right works better than kick left; ball moved 0.49 m',
      'search_scan: ball found at bearing 18° left, 1.2 m',
      'the password drawer is in the study (ask Ana)',
      'find-and-kick: success — ball displaced 0.49 m (4 steps) · search_scan: ball found at bearing 18° left; kick: ball moved 0.49 m',
      // A duck's name is a long slug; an episode starts with it.
      'fetch-the-ball-from-the-kitchen-2: success — ball displaced 0.49 m (4 steps)',
      'patrol-living-room-and-hallway-v2: failure — budget: 12 steps spent (12 steps)',
    ]) assert.equal(secretReason(ok), undefined, ok);
  });
});

describe('the cap', () => {
  function grow(notes: number, episodes: number): Entry[] {
    let m: Entry[] = [];
    for (let i = 0; i < episodes; i += 1) m = apply(m, planEpisode(m, { text: `episode ${i}` }, ctx));
    for (let i = 0; i < notes; i += 1) m = apply(m, planNote(m, { text: `note ${i}`, source: 'model' }, ctx));
    return m;
  }

  it('over the cap the oldest episodes go first', () => {
    let m = grow(10, BODY_CAP - 10);
    const plan = planNote(m, { text: 'one more note', source: 'model' }, ctx);
    assert.deepEqual(plan.evicted.map((e) => e.text), ['episode 0']);
    m = apply(m, plan);
    assert.equal(m.length, BODY_CAP);
    m = apply(m, planEpisode(m, { text: 'a new episode' }, ctx));
    assert.equal(m.length, BODY_CAP);
    assert.ok(!m.some((e) => e.text === 'episode 1'));
    assert.ok(m.some((e) => e.text === 'a new episode'));
  });

  it('notes go only when no episode is left, oldest first', () => {
    let m = grow(BODY_CAP - 1, 1);
    m = apply(m, planNote(m, { text: 'note A', source: 'model' }, ctx));
    assert.ok(!m.some((e) => e.kind === 'episode'));
    const plan = planNote(m, { text: 'note B', source: 'model' }, ctx);
    assert.deepEqual(plan.evicted.map((e) => e.text), ['note 0']);
  });

  it('an episode in a body full of notes is not kept: notes were chosen on purpose', () => {
    const m = grow(BODY_CAP, 0);
    const plan = planEpisode(m, { text: 'late episode' }, ctx);
    assert.equal(plan.entry, undefined);
    assert.equal(plan.del.length, 0);
  });

  it('overCap picks nothing under the cap', () => {
    assert.deepEqual(overCap(grow(3, 3)), []);
  });
});
