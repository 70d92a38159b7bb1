/**
 * A duck is checked against its body when it is loaded: a verb the body lacks is refused in one
 * line that names the body and its closest verb (a typo's "did you mean", or for another body's
 * verb the nearest this body has, with its list), exit 2, before any body opens or any
 * transcript is written.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeDuck } from '../helpers/ducks.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';

function home(): { env: NodeJS.ProcessEnv; ducks: string; transcripts: string } {
  const h = tempDir('quackd-check-');
  mkdirSync(join(h, 'ducks'));
  return { env: { QUACKD_HOME: h }, ducks: join(h, 'ducks'), transcripts: join(h, 'transcripts') };
}

const nothingRan = (dir: string): boolean => !existsSync(dir) || readdirSync(dir).length === 0;

describe('a verb its body lacks', () => {
  it("another body's verb: one line naming the body, its closest verb and what it can do", async () => {
    const h = home();
    const path = writeDuck(h.ducks, 'nod', 'robot: reachy-mini:mock\nverbs: [look, kick]');
    const r = await quackd(['run', path], { env: h.env });
    assert.equal(r.code, 2);
    assert.equal(r.stderr, `quackd: ${path}:3: verbs: "kick" is not a verb of reachy-mini:mock; its closest is "look" (its verbs: look, turn_body, antennas, look_around, report, quack)\n`);
    assert.equal(r.stdout, '');
    assert.ok(nothingRan(h.transcripts), 'refused before a transcript');
  });

  it('a typo: did you mean', async () => {
    const h = home();
    const path = writeDuck(h.ducks, 'scan', 'robot: xlerobot:sim\nverbs: [look_arond, report]');
    const r = await quackd(['run', path], { env: h.env });
    assert.equal(r.code, 2);
    assert.equal(r.stderr, `quackd: ${path}:3: verbs: "look_arond" is not a verb of xlerobot:sim (did you mean "look_around"?)\n`);
  });

  it('a starter run on a body that cannot do its verbs (--robot)', async () => {
    const h = home();
    const r = await quackd(['run', 'alohamini-lookout', '--robot', 'toddlerbot:sim'], { env: h.env });
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'quackd: starter:alohamini-lookout:4: verbs: "drive" is not a verb of toddlerbot:sim; its closest is "look" (its verbs: look_around, look, turn, walk, report, quack)\n');
    assert.ok(nothingRan(h.transcripts));
    // The walking body's own lookout is fine there.
    assert.equal((await quackd(['run', 'toddlerbot-lookout', '--robot', 'toddlerbot:sim', '--no-memory'], { env: h.env })).code, 0);
  });

  it('quackd ducks shows such a duck of yours as invalid, with the same words', async () => {
    const h = home();
    writeDuck(h.ducks, 'kicker', 'robot: alohamini:sim\nverbs: [kick]');
    const r = await quackd(['ducks'], { env: h.env });
    assert.match(r.stdout, /^kicker +yours +\(invalid: .*kicker\.duck:3: verbs: "kick" is not a verb of alohamini:sim; its closest is "/m);
  });
});
