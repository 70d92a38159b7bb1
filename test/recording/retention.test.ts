/**
 * Recording retention on real files: a recording whose transcript is gone goes, however little
 * the recordings weigh; while every one has its transcript and all fit the cap, none goes; past
 * the cap a robot's oldest go and its newest stays.
 */
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { pruneRecordings } from '../../src/recording/retention.js';
import { tempDir } from '../helpers/tmp.js';

/** A run's transcript (its start line names the robot) and its recording of `bytes` bytes. */
function writeRun(transcripts: string, recordings: string, id: string, robot: string, bytes: number): void {
  writeFileSync(join(transcripts, `${id}.jsonl`), `${JSON.stringify({ t: '2026-12-01T12:00:00.000Z', run: id, type: 'start', duck: 'walk', body: robot, provider: 'fake' })}\n`);
  writeFileSync(join(recordings, `${id}.mcap`), Buffer.alloc(bytes));
}

it('a recording without its transcript goes even when all of them are small; within the cap none goes; past it the oldest go', () => {
  const [transcripts, recordings] = [tempDir(), tempDir()];
  writeRun(transcripts, recordings, '20261201-120000-walk', 'microduck:sim2d', 100);
  writeRun(transcripts, recordings, '20261201-120100-walk', 'microduck:sim2d', 100);
  writeFileSync(join(recordings, '20261201-115900-gone.mcap'), Buffer.alloc(10));
  const policy = { record: true, maxBytes: 1000 };
  assert.deepEqual(pruneRecordings(recordings, transcripts, policy, { apply: true }).gone.map((r) => r.id), ['20261201-115900-gone']);
  assert.deepEqual(pruneRecordings(recordings, transcripts, policy, { apply: true }), { gone: [], kept: [] });
  assert.equal(readdirSync(recordings).length, 2);
  writeRun(transcripts, recordings, '20261201-120200-walk', 'microduck:sim2d', 900);
  // Newest first: 900 + 100 fit the cap, the third does not.
  assert.deepEqual(pruneRecordings(recordings, transcripts, policy, { apply: true }).gone.map((r) => r.id), ['20261201-120000-walk']);
  assert.deepEqual(readdirSync(recordings).sort(), ['20261201-120100-walk.mcap', '20261201-120200-walk.mcap']);
});
