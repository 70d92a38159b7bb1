import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findBody, robotCan } from '../../src/bodies/index.js';
import { InputError } from '../../src/cli/errors.js';
import { checkDuckForBody } from '../../src/ducks/check.js';
import { findDuck, listDucks } from '../../src/ducks/find.js';
import { parseDuck } from '../../src/ducks/parse.js';
import { childEnv, runCli } from '../helpers/cli.js';
import { duck, duckText } from '../helpers/ducks.js';
import { tempDir } from '../helpers/tmp.js';
import { aliasBomb } from '../helpers/yaml.js';

function parseError(text: string): string {
  try {
    parseDuck(text, 'ducks/typo.duck', 'typo');
  } catch (err) {
    assert.ok(err instanceof InputError, `expected an InputError, got ${String(err)}`);
    assert.ok(!err.message.includes('\n'), 'the error is one line');
    return err.message;
  }
  assert.fail('expected the duck to be rejected');
}

describe('the bundled starters', () => {
  it('lists hello-world, find-and-kick, flock-find-ball and the three lookouts, and every one parses for its body', () => {
    const starters = listDucks().filter((d) => d.origin === 'starter');
    assert.deepEqual(starters.map((d) => d.name).sort(), ['alohamini-lookout', 'find-and-kick', 'flock-find-ball', 'hello-world', 'patrol', 'reachy-lookout', 'toddlerbot-lookout', 'xlerobot-lookout']);
    for (const d of starters) assert.ok(d.valid, `${d.name}: ${d.title}`);
    const fk = findDuck('find-and-kick');
    assert.equal(fk.robot, 'microduck:sim2d');
    assert.deepEqual([...fk.verbs], ['search_scan', 'turn', 'walk', 'kick', 'quack']);
    assert.deepEqual(fk.successWhen, [{ metric: 'ball_displaced_m', op: '>=', value: 0.3 }]);
    assert.match(fk.text, /^1\. search_scan/m);
    const hello = findDuck('hello-world');
    assert.deepEqual([...hello.verbs], ['quack']);
  });

  it('suggests the closest name for a misspelt starter', () => {
    assert.throws(() => findDuck('find-and-kik'), /no duck named "find-and-kik" \(did you mean "find-and-kick"\?\)/);
  });
});

describe('parseDuck', () => {
  it('fills default budgets and the default body', () => {
    const d = duck('verbs: [quack]');
    assert.deepEqual(d.budgets, { steps: 12, llm_calls: 20, seconds: 60 });
    assert.equal(d.robot, 'microduck:sim2d');
    assert.deepEqual([...d.confirm], []);
  });

  it('keeps budgets, confirm and several success checks', () => {
    const d = duck('verbs: [walk, kick]\nbudgets: { steps: 3 }\nconfirm: [kick]\nsuccess_when: ["ball_displaced_m >= 0.3", "quacks > 0"]');
    assert.deepEqual(d.budgets, { steps: 3, llm_calls: 20, seconds: 60 });
    assert.deepEqual([...d.confirm], ['kick']);
    assert.equal(d.successWhen.length, 2);
  });

  it('rejects a file without front matter', () => {
    assert.match(parseError('# just markdown\n1. hi\n'), /^ducks\/typo\.duck:1: a \.duck file starts with YAML front matter/);
  });

  it('rejects front matter that is never closed', () => {
    assert.match(parseError('---\nverbs: [quack]\n# body\n'), /never closed/);
  });

  it('names the line of a YAML syntax error', () => {
    assert.match(parseError(duckText('verbs: [quack\nbudgets: {steps: 3}')), /^ducks\/typo\.duck:\d: front matter is not valid YAML/);
  });

  it('names the line and field of a wrong type', () => {
    const msg = parseError(duckText('verbs: [quack]\nbudgets:\n  steps: lots'));
    assert.match(msg, /^ducks\/typo\.duck:4: budgets\.steps: /);
  });

  it('names an unknown field', () => {
    assert.match(parseError(duckText('verbs: [quack]\nbudget: {steps: 3}')), /^ducks\/typo\.duck:\d+: front matter: unknown field "budget"/);
  });

  it('rejects a missing verbs list', () => {
    assert.match(parseError(duckText('robot: microduck:sim2d')), /verbs: /);
  });

  it('rejects a confirm verb that is not in verbs, on its line', () => {
    assert.match(parseError(duckText('verbs: [quack]\nconfirm:\n  - kick')), /^ducks\/typo\.duck:4: confirm: "kick" is not in this duck's verbs/);
  });

  it('rejects a malformed success check', () => {
    assert.match(parseError(duckText('verbs: [quack]\nsuccess_when: the ball moved')), /success_when: expected checks like/);
  });

  it('rejects a duck without a numbered strategy', () => {
    assert.match(parseError(duckText('verbs: [quack]', '# Role\n\nJust be a duck.\n')), /no numbered strategy/);
  });

  it('rejects a robot that is not adapter:backend', () => {
    assert.match(parseError(duckText('robot: microduck\nverbs: [quack]')), /^ducks\/typo\.duck:2: robot: expected adapter:backend/);
  });
});

describe('checkDuckForBody', () => {
  it('names the line of a verb the body does not have, with a suggestion', () => {
    const d = parseDuck(duckText('robot: microduck:sim2d\nverbs:\n  - quack\n  - kik'), 'ducks/typo.duck', 'typo');
    assert.throws(
      () => checkDuckForBody(d, findBody('microduck:sim2d')!, robotCan(findBody('microduck:sim2d')!, {})),
      (err: Error) => err.message === 'ducks/typo.duck:5: verbs: "kik" is not a verb of microduck:sim2d (did you mean "kick"?)',
    );
  });

  it('accepts declare and remember on any body', () => {
    assert.doesNotThrow(() => checkDuckForBody(duck('verbs: [quack, declare_success, remember]'), findBody('microduck:sim2d')!, robotCan(findBody('microduck:sim2d')!, {})));
  });
});

describe('success checks against what the body measures', () => {
  it('refuses a misspelt metric instead of silently not verifying', () => {
    const d = parseDuck(duckText('verbs: [quack]\nsuccess_when: quaks >= 1'), 'ducks/typo.duck', 'typo');
    assert.throws(
      () => checkDuckForBody(d, findBody('microduck:sim2d')!, robotCan(findBody('microduck:sim2d')!, {})),
      (err: InputError) => err.message === 'ducks/typo.duck:3: success_when: microduck:sim2d does not measure "quaks" (did you mean "quacks"?)' && err.hint === 'it measures ball_displaced_m, quacks, tilt_deg, torque',
    );
  });
});

describe('parseDuck explains in a person\'s words', () => {
  it('an unknown field on its own line, with the field it was meant to be', () => {
    const msg = (() => {
      try {
        parseDuck(duckText('verbs: [quack]\nrobot: microduck:sim2d\nbudget: { steps: 3 }'), 'x.duck', 'x');
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })();
    assert.equal(msg, 'x.duck:4: front matter: unknown field "budget" (did you mean "budgets"?)');
  });

  it('a misspelt verbs field is named on its own line, not as the verbs it leaves missing (quackd run, the built CLI)', async () => {
    const home = tempDir('quackd-duck-');
    const file = join(home, 'verb.duck');
    writeFileSync(file, '---\ndescription: Quack once.\nrobot: microduck:sim2d\nverb: [quack]\n---\n# Quack\n\n1. quack\n');
    const r = await runCli(['run', file], { env: childEnv({ QUACKD_HOME: home }) });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, `quackd: ${file}:4: front matter: unknown field "verb" (did you mean "verbs"?)\n`);
  });

  it('wrong types say what was expected', () => {
    assert.throws(() => parseDuck(duckText('verbs: quack'), 'x.duck', 'x'), /^InputError: x\.duck:2: verbs: expected a list, e\.g\. \[quack, walk\]$/);
    assert.throws(() => parseDuck(duckText('verbs: [quack]\nbudgets: { steps: 2.5 }'), 'x.duck', 'x'), /^InputError: x\.duck:3: budgets\.steps: expected a whole number \(e\.g\. 12\), got 2\.5$/);
  });
});

describe('hostile front matter is one input error', () => {
  it('an alias bomb names its line and field instead of expanding', () => {
    const msg = parseError(duckText(`verbs: [quack]\n${aliasBomb()}`));
    // l0 is on line 3; l3 is the first level that expands too far on its own.
    assert.match(msg, /^ducks\/typo\.duck:6: l3(\.\d+)*: YAML aliases expand too far \(more than 100 alias uses/);
  });

  it('an alias with no anchor is an input error on its line', () => {
    assert.match(parseError(duckText('verbs: [quack, *nope]')), /^ducks\/typo\.duck:2: verbs\.1: Unresolved alias .*: nope$/);
  });

  it('a few aliases still work', () => {
    const d = duck('verbs: &v [quack, walk]\nconfirm: *v');
    assert.deepEqual(d.confirm, ['quack', 'walk']);
  });

  it('an unknown field is shown escaped: no escape or bell reaches the terminal', () => {
    const msg = parseError(duckText('verbs: [quack]\n"x\\e[31my\\a\\u202e": 1'));
    assert.equal(msg, 'ducks/typo.duck:3: front matter: unknown field "x\\x1b[31my\\x07\\u{202e}"');
  });
});
