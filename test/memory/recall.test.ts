/** Recall: BM25 with any-word matching, Porter stemming, a floor on the best match's evidence, identical entries once, newest wins ties. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Entry } from '../../src/memory/entry.js';
import { rank, stem } from '../../src/memory/recall.js';
import { newestFirst, planEpisode, planNote } from '../../src/memory/rules.js';

function memory(texts: readonly string[]): Entry[] {
  let m: Entry[] = [];
  for (const [i, text] of texts.entries()) {
    const ctx = { body: 'microduck:sim2d', now: new Date(Date.UTC(2026, 0, 1, 0, i)).toISOString() };
    const plan = text.startsWith('run:') ? planEpisode(m, { text }, ctx) : planNote(m, { text, source: 'model' }, ctx);
    m = [...m, ...plan.put];
  }
  return m;
}

/** Routine runs, as most of a robot's memory is: they make ball and kick common words. */
const routine = Array.from({ length: 30 }, (_, i) => `run: find-and-kick: success — ball displaced 0.${i} m (4 steps) · kick: ball moved`);

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

  it('stems so the word forms people use meet', () => {
    for (const family of [['kick', 'kicks', 'kicking', 'kicked'], ['mop', 'mopped', 'mopping'], ['battery', 'batteries'], ['charge', 'charger', 'charging', 'charged']]) {
      assert.deepEqual(new Set(family.map(stem)).size, 1, family.join('/'));
    }
    assert.notEqual(stem('water'), stem('wat'));
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

  it('in a memory of a few entries, a word a note and its run\'s episode share still finds the note', () => {
    // A run saved a note and its episode mentions the same thing: four entries in all.
    const small = memory(['the charger is behind the armchair', 'run: hello-world: success — remembered where the charger is', 'the ball rolled under the sofa', 'run: find-and-kick: success — ball displaced 0.4 m']);
    assert.equal(rank(small, 'where is the charger')[0]?.entry.text, 'the charger is behind the armchair');
    assert.deepEqual(rank(small, 'what colour is the fridge'), []);
  });

  it('does not hold the words of a long natural question that no note has against its answer', () => {
    const house = memory([
      'the duck got stuck squeezing past the towel cupboard twice',
      'the kitchen floor tiles are wet after mopping on Mondays',
      'the kitchen bin is emptied on Tuesdays',
      'the duck quacks in the kitchen at noon',
      'the red ball rolled under the sofa',
      'the blue ball is in the kitchen',
      'the kitchen door sticks',
      'the duck waits by the kitchen window',
      'the duck is called Pip',
      'the duck wobbles on the rug',
      'the duck naps at noon',
      'the kitchen light is bright',
      ...routine,
    ]);
    assert.match(rank(house, 'should the duck wait before squeezing past the towel cupboard?')[0]?.entry.text ?? '', /towel cupboard/);
    assert.match(rank(house, 'when is the floor mopped')[0]?.entry.text ?? '', /mopping/);
    // Only words many entries share (duck, ball, kitchen): nothing, not the nearest.
    assert.deepEqual(rank(house, 'is there a cake in the kitchen'), []);
    assert.deepEqual(rank(house, 'where is the green ball'), []);
    assert.deepEqual(rank(house, 'what does the duck dream about'), []);
  });

  it('shows identical entries once, with how many there are', () => {
    const runs = memory([
      'run: find-and-kick: failure — ball stuck under the sofa (9 steps)',
      'the ball got stuck under the sofa',
      'run: find-and-kick: failure — ball stuck under the sofa (9 steps)',
      'run: find-and-kick: failure — ball stuck under the sofa (9 steps)',
      ...routine,
    ]);
    const hits = rank(runs, 'ball stuck under the sofa');
    assert.deepEqual(hits.map((h) => h.count).sort(), [1, 3]);
    const thrice = hits.find((h) => h.count === 3);
    assert.equal(thrice?.ids.length, 3);
    // The one shown is the newest of them.
    assert.equal(thrice?.entry.id, newestFirst(runs).find((e) => e.kind === 'episode' && e.text.includes('stuck'))?.id);
  });

  it('newest wins ties', () => {
    const twins = memory(['the duck likes the hall', 'the duck likes the hall!', ...routine]);
    const [first, second] = rank(twins, 'hall');
    assert.equal(first?.score, second?.score);
    assert.equal(first?.entry.text, 'the duck likes the hall!');
  });

  it('respects the limit', () => {
    assert.equal(rank(m, 'ball kick displaced', { limit: 1 }).length, 1);
  });
});
