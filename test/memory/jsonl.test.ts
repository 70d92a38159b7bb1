/** JSONL for import, export, edit and legacy files: bad lines are skipped and named; valid ones kept. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { shownOf } from '../../src/memory/edit-shown.js';
import { parseJsonl, skippedWarning, toJsonl } from '../../src/memory/jsonl.js';
import { openMemoryStore } from '../../src/memory/store.js';
import { tempDir } from '../helpers/tmp.js';

describe('parseJsonl', () => {
  it('skips lines that are not JSON or have no text, counting and naming them', () => {
    const text = ['{"text":"ok one"}', '', 'oops', '{"tags":["x"]}', '[1,2]', '{"text":"   "}', '{"text":"ok two","kind":"memo"}', '{"text":"ok three","tags":"place","time":"bad"}'].join('\n');
    const r = parseJsonl(text);
    assert.deepEqual(r.lines.map((l) => [l.line, l.text]), [[1, 'ok one'], [8, 'ok three']]);
    assert.deepEqual(r.lines[1]?.tags, ['place']);
    assert.equal(r.lines[1]?.time, undefined);
    assert.deepEqual(r.skipped.map((s) => s.line), [3, 4, 5, 6, 7]);
    assert.equal(
      skippedWarning('m.jsonl', r.skipped, 2),
      'm.jsonl: skipped 5 lines (3: not JSON; 4: no text; 5: not a JSON object; 6: no text; 7: kind must be "note" or "episode"); 2 kept',
    );
    assert.equal(skippedWarning('m.jsonl', []), undefined);
  });

  it('a warning shows what the file wrote escaped: a reason quoting a body, a file name', () => {
    const w = skippedWarning('m\u202e.jsonl', [{ line: 2, reason: 'body "\u001b[31mx\u0085" is not an adapter:backend key' }], 1);
    assert.equal(w, 'm\\u{202e}.jsonl: skipped 1 line (2: body "\\x1b[31mx\\x85" is not an adapter:backend key); 1 kept');
  });
});

describe('import and edit', () => {
  it('imports through the rules, refuses secrets by line, and re-importing an export changes nothing', async () => {
    const store = await openMemoryStore(join(tempDir('quackd-mem-'), 'memory'));
    const body = store.body('microduck:sim2d');
    const r = await body.importLines(parseJsonl('{"text":"the charger is under the desk"}\n{"text":"api_key=abcdef123456"}\n{"text":"found it","kind":"episode"}\nbroken\n'));
    assert.deepEqual([r.added, r.skipped.map((s) => s.line)], [2, [2, 4]]);
    assert.match(r.skipped[0]?.reason ?? '', /secret/);
    assert.ok(!JSON.stringify(r).includes('abcdef123456'));
    const exported = toJsonl(body.entries());
    const again = await body.importLines(parseJsonl(exported));
    assert.deepEqual([again.added, again.unchanged], [0, 2]);
    assert.equal(toJsonl(body.entries()), exported);
    await store.close();
  });

  it('writes an edit back in one transaction: change, add, remove; entries added meanwhile survive', async () => {
    const store = await openMemoryStore(join(tempDir('quackd-mem-'), 'memory'));
    const body = store.body('microduck:sim2d');
    await body.remember({ text: 'keep me', source: 'human' });
    const change = (await body.remember({ text: 'change me', source: 'human' })).entry;
    await body.remember({ text: 'remove me', source: 'human' });
    const snapshot = body.entries();
    await body.remember({ text: 'written by a run meanwhile', source: 'model' });
    const edited = toJsonl(snapshot)
      .split('\n')
      .filter((l) => !l.includes('remove me'))
      .map((l) => l.replace('"change me"', '"changed"'))
      .join('\n')
      .concat('{"text":"a new note"}\n{"text":"sk-ant-api03-abcdefghijklmnopqrstuv"}\n');
    const r = await body.applyEdit(shownOf(snapshot), parseJsonl(edited));
    assert.deepEqual([r.changed, r.added, r.removed, r.skipped.length], [1, 1, 1, 1]);
    assert.deepEqual(body.entries().map((e) => e.text).sort(), ['a new note', 'changed', 'keep me', 'written by a run meanwhile']);
    assert.deepEqual(body.entries().find((e) => e.id === change?.id)?.history.map((h) => h.text), ['change me']);
    await store.close();
  });

  it('an edit writes only the lines the person changed: what another process wrote meanwhile survives', async () => {
    const dir = join(tempDir('quackd-mem-'), 'memory');
    const store = await openMemoryStore(dir);
    const body = store.body('microduck:sim2d');
    await body.remember({ text: 'the ball is in the kitchen', topic: 'ball', source: 'model' });
    await body.remember({ text: 'the rug is slippery', source: 'human' });
    const snapshot = body.entries();
    // A run, in another process, supersedes the ball note while the editor is open.
    const run = await openMemoryStore(dir);
    await run.body('microduck:sim2d').remember({ text: 'the ball is in the hall', topic: 'ball', source: 'model' });
    await run.close();
    const edited = toJsonl(snapshot).replace('"the rug is slippery"', '"the rug is very slippery"');
    const r = await body.applyEdit(shownOf(snapshot), parseJsonl(edited));
    assert.deepEqual([r.changed, r.added, r.removed], [1, 0, 0]);
    assert.deepEqual(body.entries().map((e) => e.text).sort(), ['the ball is in the hall', 'the rug is very slippery']);
    await store.close();
  });

  it('a note edited into another note\'s text or topic folds into it; a secret tag is refused', async () => {
    const store = await openMemoryStore(join(tempDir('quackd-mem-'), 'memory'));
    const body = store.body('microduck:sim2d');
    await body.remember({ text: 'the charger is under the desk', source: 'human' });
    await body.remember({ text: 'the ball is in the kitchen', topic: 'ball', source: 'model' });
    await body.remember({ text: 'the ball was seen in the hall', source: 'model' });
    await body.remember({ text: 'the desk has a charger under it', source: 'model' });
    const snapshot = body.entries();
    const edited = toJsonl(snapshot)
      .replace('"the desk has a charger under it"', '"the charger is under the desk"')
      .replace('"the ball was seen in the hall","tags":[]', '"the ball was seen in the hall","tags":[],"topic":"ball"')
      // The first line (the oldest note) gets a secret tag: refused, and the note stays as it was.
      .replace('"the charger is under the desk","tags":[]', '"the charger is under the desk","tags":["password=hunter2"]');
    const r = await body.applyEdit(shownOf(snapshot), parseJsonl(edited));
    assert.equal(r.skipped.length, 1);
    assert.match(r.skipped[0]?.reason ?? '', /in a tag/);
    const notes = body.entries();
    assert.deepEqual(notes.map((e) => e.text).sort(), ['the ball was seen in the hall', 'the charger is under the desk']);
    assert.deepEqual(notes.find((e) => e.topic === 'ball')?.history.map((h) => h.text), ['the ball is in the kitchen']);
    assert.ok(!JSON.stringify(notes).includes('hunter2'));
    assert.deepEqual(store.invalid(), []);
    await store.close();
  });
});
