/**
 * The command a walk or a turn sends, from the slot's manifest: the nominal unless asked, else
 * the top of the range that way, always inside the ranges, and said; a manifest whose nominal
 * lies outside its own ranges is refused in one line.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commandFor, timeLimitMs, type Commanded } from '../../src/policy/command.js';
import { PolicyError } from '../../src/policy/errors.js';
import { parseManifest, type ManifestFile } from '../../src/policy/manifest.js';

const trained: ManifestFile = { command: { ranges: { vx: [-0.5, 0.5], vyaw: [-1, 1] } } };
const withNominal: ManifestFile = { command: { ranges: { vx: [-0.2, 0.5] }, nominal: { vx: 0.4 } } };

function sent(c: Commanded | string): Commanded {
  assert.notEqual(typeof c, 'string', String(c));
  return c as Commanded;
}

describe('the command a verb sends', () => {
  it('is the nominal unless asked, else the top of the range in the verb’s direction, and says which', () => {
    assert.deepEqual(sent(commandFor(withNominal, 'vx', 1)).text, "commanded vx 0.40 m/s (the policy's nominal)");
    assert.equal(sent(commandFor(trained, 'vx', 1)).value, 0.5);
    assert.equal(sent(commandFor(trained, 'vx', 1)).text, "commanded vx 0.50 m/s (the top of the policy's range)");
    assert.equal(sent(commandFor(trained, 'vyaw', -1)).value, -1);
    assert.equal(sent(commandFor(trained, 'vx', 1, 0.45)).text, 'commanded vx 0.45 m/s (as asked)');
  });

  it('never leaves the ranges: a turn asked past the trained rate is sent the top, and says so', () => {
    const c = sent(commandFor(trained, 'vyaw', 1, 1.5));
    assert.equal(c.value, 1);
    assert.equal(c.clampedFrom, 1.5);
    assert.equal(c.text, "commanded vyaw 1.00 rad/s (1.50 asked, the top of the policy's range)");
    // Backwards with a nominal of 0.4 on a range that goes back only to -0.2.
    assert.equal(sent(commandFor(withNominal, 'vx', -1)).value, -0.2);
  });

  it('refuses a direction the ranges do not allow, and says so', () => {
    assert.equal(commandFor({ command: { ranges: { vx: [0, 0.5] } } }, 'vx', -1), "the policy's command.ranges.vx [0, 0.5] has no backward speed");
  });

  it('gives a verb the time its command needs: a quarter of the commanded speed, half as long again, 2 s to start and stop', () => {
    assert.equal(timeLimitMs(1, sent(commandFor(trained, 'vx', 1))), 14_000);
    assert.equal(timeLimitMs(-1, sent(commandFor(trained, 'vx', -1))), 14_000);
  });

  it('a nominal outside its own range is refused when the manifest is read', () => {
    assert.throws(
      () => parseManifest('{"command": {"ranges": {"vx": [-0.5, 0.5]}, "nominal": {"vx": 0.6}}}', 'p/manifest.json'),
      (err: unknown) => err instanceof PolicyError && err.message === 'p/manifest.json: command.nominal.vx: 0.6 is outside command.ranges.vx [-0.5, 0.5]',
    );
    assert.throws(() => parseManifest('{"sim": {"timestep": 0.005, "decimation": 4.5}}', 'p/manifest.json'), /^PolicyError: p\/manifest\.json: sim\.decimation: expected a whole number$/);
    assert.deepEqual(parseManifest('{"sim": {"timestep": 0.005, "decimation": 4}}', 'm.json'), { sim: { timestep: 0.005, decimation: 4 } });
  });
});
