/**
 * A flock duck as the parser reads it: members in the three forms, the plan's gated verb added to
 * `confirm` (so a run of it on another Pi asks the coordinator), and every mistake refused in one
 * line that names the file, the line and the field.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { InputError } from '../../src/errors.js';
import { parseDuck } from '../../src/ducks/parse.js';
import { duckText } from '../helpers/ducks.js';

const VERBS = 'verbs: [search_scan, turn, walk, kick, quack]';

function refusal(frontMatter: string): string {
  try {
    parseDuck(duckText(frontMatter), 'f.duck', 'f');
  } catch (err) {
    assert.ok(err instanceof InputError, String(err));
    assert.ok(!err.message.includes('\n'), 'one line');
    return err.message;
  }
  return assert.fail('expected a refusal');
}

describe('flock ducks', () => {
  it('reads fleet names, repeated simulator keys and remote robots, and gates the plan’s verb', () => {
    const d = parseDuck(duckText(`${VERBS}\nconfirm: [walk]\nflock:\n  members:\n    - kitchen-duck\n    - microduck:sim2d\n    - microduck:sim2d\n    - remote:hall-duck\n    - remote:home/den/den-duck\n  plan: first-finder-kicks\n  seconds: 120`), 'f.duck', 'f');
    assert.ok(d.flock !== undefined);
    assert.deepEqual(
      d.flock.members.map((m) => [m.name, m.ref, m.line]),
      [
        ['kitchen-duck', { kind: 'local', robot: 'kitchen-duck' }, 6],
        ['microduck:sim2d#1', { kind: 'local', robot: 'microduck:sim2d' }, 7],
        ['microduck:sim2d#2', { kind: 'local', robot: 'microduck:sim2d' }, 8],
        ['remote:hall-duck', { kind: 'remote', robot: 'hall-duck' }, 9],
        ['remote:home/den/den-duck', { kind: 'remote', base: 'home/den', robot: 'den-duck' }, 10],
      ],
    );
    assert.equal(d.flock.plan, 'first-finder-kicks');
    assert.equal(d.flock.seconds, 120);
    // The person's own gate stays theirs; kick is the coordinator's, and asks wherever the duck runs.
    assert.deepEqual([...d.flock.personConfirm], ['walk']);
    assert.deepEqual([...d.confirm], ['walk', 'kick']);
  });

  it('a plain duck has no flock and its confirm is untouched', () => {
    const d = parseDuck(duckText(VERBS), 'f.duck', 'f');
    assert.equal(d.flock, undefined);
    assert.deepEqual([...d.confirm], []);
  });

  it('refuses each mistake on its line', () => {
    const members = (list: string) => `${VERBS}\nflock:\n  members:\n${list}\n  plan: first-finder-kicks`;
    assert.equal(refusal(members('    - kitchen-duck\n    - kitchen-duck')), 'f.duck:6: flock.members.1: "kitchen-duck" is written twice');
    assert.equal(refusal(members('    - microduck:sim2d\n    - microduck:sim3d')), 'f.duck:6: flock.members.1: unknown body "microduck:sim3d" (did you mean "microduck:sim2d"?)');
    assert.equal(refusal(members('    - microduck:jsonrpc\n    - microduck:jsonrpc')), 'f.duck:6: flock.members.1: microduck:jsonrpc is written twice, but it is one robot: name each one under robots: in config.yaml');
    assert.match(refusal(members('    - Kitchen Duck')), /^f\.duck:5: flock\.members\.0: expected a fleet robot \(kitchen-duck\), a body key \(microduck:sim2d\) or remote:BASE\/ROBOT/);
    assert.match(refusal(members('    - remote:quackd/+')), /^f\.duck:5: flock\.members\.0: expected a fleet robot/);
    assert.equal(refusal(`${VERBS}\nflock: { members: [a], plan: first-finder-kick }`), 'f.duck:3: flock.plan: expected a plan: first-finder-kicks');
    assert.equal(refusal(`verbs: [search_scan, quack]\nflock:\n  members: [a, b]\n  plan: first-finder-kicks`), "f.duck:5: flock.plan: first-finder-kicks leaves kick to the coordinator, but kick is not in this duck's verbs");
    assert.equal(refusal(`${VERBS}\nrobot: microduck:sim2d\nflock: { members: [a], plan: first-finder-kicks }`), 'f.duck:3: robot: a flock duck names its robots under flock.members');
    assert.equal(refusal(`${VERBS}\nflock: { members: [], plan: first-finder-kicks }`), 'f.duck:3: flock.members: list at least one member');
    assert.equal(refusal(`${VERBS}\nflock: { members: [a], plan: first-finder-kicks, leader: a }`), 'f.duck:3: flock: unknown field "leader"');
  });
});
