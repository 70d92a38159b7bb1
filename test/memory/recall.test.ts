/** Recall: BM25 with any-word matching, light stemming, a relevance floor, newest wins ties. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Entry } from '../../src/memory/entry.js';
import { rank, stem } from '../../src/memory/recall.js';
import { planEpisode, planNote } from '../../src/memory/rules.js';

function memory(texts: readonly string[]): Entry[] {
  let m: Entry[] = [];
  for (const [i, text] of texts.entries()) {
    const ctx = { body: 'microduck:sim2d', now: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() };
    const plan = text.startsWith('run:') ? planEpisode(m, { text }, ctx) : planNote(m, { text, source: 'model' }, ctx);
    m = [...m, ...plan.put];
  }
  return m;
}

const m = memory([
  'the charger is under the desk in the study',
  'the rug in the hallway is slippery',
  'the cat sleeps on the sofa in the afternoon',
  'run: find-and-kick: success — ball displaced 0.49 m',
  'run: find-and-kick: success — ball displaced 0.51 m',
  'kick right works better than kick left',
]);

describe('recall', () => {
  it('finds a note that shares only some words with a natural question', () => {
    assert.equal(rank(m, 'where is the charging dock')[0]?.entry.text, 'the charger is under the desk in the study');
    assert.equal(rank(m, 'is the hallway rug slippery?')[0]?.entry.text, 'the rug in the hallway is slippery');
  });

  it('stems lightly so word forms meet', () => {
    assert.equal(stem('charging'), stem('charger'));
    assert.equal(stem('charged'), stem('charge'));
    assert.equal(stem('balls'), 'ball');
    assert.equal(stem('stairs'), 'stair');
    assert.equal(stem('slipped'), 'slip');
  });

  it('abstains rather than return the nearest irrelevant entry', () => {
    assert.deepEqual(rank(m, 'what is the weather tomorrow'), []);
    assert.deepEqual(rank(m, 'where are the car keys'), []);
    assert.deepEqual(rank(m, 'where is it'), []);
    assert.deepEqual(rank([], 'charger'), []);
  });

  it('newest wins ties', () => {
    const twins = memory(['the duck likes the hall', 'the duck likes the hall!']);
    const [first, second] = rank(twins, 'hall');
    assert.equal(first?.score, second?.score);
    assert.equal(first?.entry.text, 'the duck likes the hall!');
  });

  it('respects the limit', () => {
    assert.equal(rank(m, 'ball kick displaced', { limit: 1 }).length, 1);
  });
});
