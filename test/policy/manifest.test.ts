/**
 * The policy manifest (schema 2) as a file: the published example reads, every refusal is one
 * line naming the file and the field, written out here by hand.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PolicyError } from '../../src/policy/errors.js';
import { parseManifest } from '../../src/policy/manifest.js';

// The single-policy example of pollen-robotics/microduck docs/policy-manifest.md, as published.
const PUBLISHED = `{
  "schema_version": 2,
  "model_api": 1,
  "obs_len": 61,
  "action_len": 14,
  "robot": { "model": "microduck", "hw_rev": 1, "servos": "xl330", "control_hz": 50 },
  "name": "polite-bow",
  "kind": "episodic",
  "duration_s": 4.0,
  "chain": false,
  "entry_pose": "standing",
  "description": "Bows from a two-foot stand and comes back up.",
  "command": { "encoding": "constant", "idle": [0, 0, 0],
               "twist": "unused (zeros)", "head": "unused (zeros)", "body": "unused (zeros)" },
  "training": { "task_id": "Mjlab-PoliteBow-Flat-MicroDuck", "repo": "pollen-robotics/microduck_rl",
                "commit": "0bf9897", "branch": "bow", "dirty": false,
                "run": "pollen-robotics/mjlab_microduck/abc123", "checkpoint": 3000,
                "exported": "2026-09-02T14:05:00Z" }
}`;

describe('policy manifest: the file', () => {
  it('reads the published schema-2 example, keeping what quackd reads and dropping the rest', () => {
    const m = parseManifest(PUBLISHED, 'bow/manifest.json');
    assert.deepEqual(m, {
      schema_version: 2,
      model_api: 1,
      obs_len: 61,
      action_len: 14,
      robot: { model: 'microduck', hw_rev: 1, servos: 'xl330', control_hz: 50 },
      name: 'polite-bow',
      kind: 'episodic',
      duration_s: 4,
      chain: false,
      entry_pose: 'standing',
      description: 'Bows from a two-foot stand and comes back up.',
      command: { encoding: 'constant', idle: [0, 0, 0], twist: 'unused (zeros)', head: 'unused (zeros)', body: 'unused (zeros)' },
    });
  });

  it('every field is optional: {} is a manifest', () => {
    assert.deepEqual(parseManifest('{}', 'm.json'), {});
  });

  const bad: [string, string | RegExp][] = [
    // V8 words its JSON errors differently across Node versions.
    ['{"obs_len": 61,', /^p\/manifest\.json: not valid JSON \([^\n]*position 15[^\n]*\)$/],
    ['[]', 'p/manifest.json: expected an object'],
    ['{"obs_len": "61"}', 'p/manifest.json: obs_len: expected a number'],
    ['{"obs_len": 51.5}', 'p/manifest.json: obs_len: expected a whole number'],
    ['{"kind": "walk"}', 'p/manifest.json: kind: expected one of episodic, perpetual, scripted'],
    ['{"robot": {"model": 7}}', 'p/manifest.json: robot.model: expected a string'],
    ['{"command": {"idle": [0, 0]}}', 'p/manifest.json: command.idle: expected 3 values'],
    ['{"command": {"ranges": {"vz": [0, 1]}}}', 'p/manifest.json: command.ranges: unknown field "vz"'],
    ['{"command": {"ranges": {"vx": [0.5, -0.5]}}}', 'p/manifest.json: command.ranges.vx: min (the first) is above max (the second)'],
    ['{"home": [0, 0, 0]}', 'p/manifest.json: home: expected 14 values'],
    ['{"obs_layout": "microduck-54"}', 'p/manifest.json: obs_layout: expected one of microduck-51, microduck-51-body, microduck-61, quackd-gait-1, open-duck-mini-v2'],
    ['{"duration_s": -1}', 'p/manifest.json: duration_s: expected a number > 0'],
    ['{"policies": [{"file": "walking.onnx"}]}', 'p/manifest.json: is a policy set (policies[]), not one policy: point at a folder with one policy.onnx and its manifest.json'],
  ];
  for (const [text, message] of bad) {
    it(`refuses ${text} in one line`, () => {
      assert.throws(
        () => parseManifest(text, 'p/manifest.json'),
        (err: unknown) => err instanceof PolicyError && err.reason === 'manifest' && err.file === 'p/manifest.json' && (typeof message === 'string' ? err.message === message : message.test(err.message)),
      );
    });
  }
});
