/**
 * A manifest key nobody reads is named with the one a person most likely meant, never refused;
 * robotd's fields that quackd does not use are not warned about.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { manifestWarnings } from '../../src/policy/manifest-warnings.js';
import { parseManifest } from '../../src/policy/manifest.js';

describe('manifest warnings', () => {
  it('names unknown keys at the top, in command and in robot, with the closest known one; reads the rest', () => {
    const text = JSON.stringify({ obs_len: 51, home_pose: [0], robot: { model: 'microduck', contro_hz: 50 }, command: { vx: 0.5, ranges: { vx: [-0.5, 0.5] } }, colour: 'yellow' });
    assert.deepEqual(manifestWarnings(text), [
      'home_pose: unknown field, ignored (did you mean home?)',
      'colour: unknown field, ignored',
      'robot.contro_hz: unknown field, ignored (did you mean robot.control_hz?)',
      'command.vx: unknown field, ignored (did you mean command.nominal.vx?)',
    ]);
    // Not refused: the fields quackd knows are read as they are.
    assert.deepEqual(parseManifest(text, 'm.json'), { obs_len: 51, robot: { model: 'microduck' }, command: { ranges: { vx: [-0.5, 0.5] } } });
  });

  it("says nothing of robotd's fields quackd does not use (training, eval, command.sit)", () => {
    assert.deepEqual(manifestWarnings(JSON.stringify({ training: { task_id: 'x' }, eval: {}, command: { encoding: 'posture_flag', sit: 1, stand: 0, slot: 2 }, sim: { timestep: 0.005, decimation: 4 } })), []);
  });
});
