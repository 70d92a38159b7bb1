/**
 * Every verb a body performs is classed: it moves the body (and so stands behind a confirmation
 * gate in a --goal run or an MCP session on real hardware) or it does not. A new verb that is in
 * neither list fails here, so nobody adds a way to move a robot that skips the gate by omission.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { listBodies } from '../../src/bodies/index.js';
import { MOTION_VERBS, motionVerbs } from '../../src/safety/motion.js';

/** Verbs that move nothing: a sound (a real duck's quack nods, which its firmware keeps within a few degrees), a report. */
const STILL = new Set(['quack', 'report']);

describe('motion verbs', () => {
  it('every verb of every body is classed as moving or still, never both', () => {
    for (const body of listBodies()) {
      for (const verb of body.verbs) {
        assert.ok(MOTION_VERBS.has(verb) !== STILL.has(verb), `${body.key}: "${verb}" must be in exactly one of MOTION_VERBS and STILL`);
      }
    }
  });

  it('keeps a duck\'s order and drops what does not move', () => {
    assert.deepEqual(motionVerbs(['quack', 'drive', 'report', 'look', 'walk']), ['drive', 'look', 'walk']);
  });
});
