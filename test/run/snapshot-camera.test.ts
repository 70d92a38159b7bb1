/**
 * A camera that fails mid-run ends that `snapshot` with its one line, and nothing else: the run
 * goes on, the pilot reads why, nothing is saved for the failed picture. The camera is a real
 * child process behind the pipe camera (as ffmpeg is): it gives one frame and is then unplugged,
 * and is not there when the next grab starts it again.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { SIM2D_BALL_LOOK } from '../../src/bodies/microduck/sim2d/camera-scan.js';
import { createSim2dBody } from '../../src/bodies/microduck/sim2d/sim2d-body.js';
import { PipeCamera } from '../../src/camera/pipe-camera.js';
import { startRun } from '../../src/run/start-run.js';
import { Fleet } from '../../src/runtime/fleet.js';
import { noTtyGate } from '../../src/safety/gate.js';
import type { TranscriptEvent } from '../../src/transcript/events.js';
import { duck } from '../helpers/ducks.js';
import { scripted } from '../helpers/scripted-provider.js';
import { tempDir } from '../helpers/tmp.js';

const WIDTH = 640;
const HEIGHT = 480;

/** One grey frame, then "unplugged"; started again, the device is gone. */
function unpluggedCamera(dir: string): PipeCamera {
  const marker = join(dir, 'plugged-once');
  const script = `if [ -e '${marker}' ]; then echo '/dev/video0: No such device' >&2; exit 1; fi; touch '${marker}'; head -c ${WIDTH * HEIGHT * 3} /dev/zero | tr '\\0' '\\200'; sleep 0.2; echo '/dev/video0: No such device' >&2; exit 1`;
  return new PipeCamera({ source: '/dev/video0', command: 'sh', args: ['-c', script], install: 'sh', width: WIDTH, height: HEIGHT, frameBytes: WIDTH * HEIGHT * 3, deadlineMs: 3000 });
}

describe('snapshot with a camera that goes away', () => {
  it('the second snapshot fails in one line; the run goes on and ends as the pilot says', async () => {
    const dir = tempDir('quackd-snapshot-camera-');
    const camera = unpluggedCamera(dir);
    const body = Object.assign(createSim2dBody({ seed: 7 }), { eyes: { camera, ball: SIM2D_BALL_LOOK } });
    const events: TranscriptEvent[] = [];
    const provider = Object.assign(
      scripted([[{ name: 'snapshot', args: {} }], [{ name: 'snapshot', args: {} }], [{ name: 'quack', args: {} }], [{ name: 'declare_failure', args: { reason: 'the camera went away' } }]]),
      { seesImages: true },
    );
    const transcriptsDir = join(dir, 'transcripts');
    const report = await startRun({
      duck: duck('verbs: [snapshot, quack]\nbudgets: { steps: 3, llm_calls: 5 }'),
      robot: 'microduck:sim2d',
      seed: 7,
      provider,
      gate: noTtyGate,
      dryRun: false,
      transcriptsDir,
      signal: new AbortController().signal,
      lease: () => Promise.resolve({ robot: new Fleet().resolve('microduck:sim2d', {}), body, release: async () => (await body.close(), await camera.close()) }),
      onEvent: (e) => void events.push(e),
    });
    assert.equal(report.outcome.status, 'failure', report.outcome.reason);
    const results = events.filter((e): e is Extract<TranscriptEvent, { type: 'verb_result' }> => e.type === 'verb_result');
    assert.deepEqual(results.map((r) => [r.verb, r.ok]), [['snapshot', true], ['snapshot', false], ['quack', true]]);
    assert.match(results[0]!.summary, /^picture 512×384, [\d.]+ kB; camera: no ball in view$/);
    assert.equal(results[1]!.summary, 'camera /dev/video0: sh exited with code 1: /dev/video0: No such device');
    assert.deepEqual(results[1]!.data, { camera_failed: 'gone' });
    // The pilot read the same line, and was shown only the picture that was taken.
    const told = provider.requests[2]?.messages.filter((m) => m.role === 'tool');
    assert.equal(told?.at(-1)?.role === 'tool' ? told.at(-1)?.content : undefined, 'failed — camera /dev/video0: sh exited with code 1: /dev/video0: No such device');
    assert.equal(report.pictures?.shown, 1);
    assert.deepEqual(readdirSync(join(transcriptsDir, report.runId)), ['snapshot-1.jpg']);
    assert.equal(existsSync(join(transcriptsDir, report.runId, 'snapshot-2.jpg')), false);
  });
});
