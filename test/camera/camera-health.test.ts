/** The `camera` line of `quackd health`: one frame asked of the robot's camera, as a run would. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';

async function cameraLine(robot: string): Promise<{ status: string; detail: string } | undefined> {
  const dir = tempDir('quackd-health-camera-');
  writeFileSync(join(dir, 'config.yaml'), `robots:\n  duck: ${robot}\n`);
  const r = await quackd(['health', '--robot', 'duck', '--json'], { env: { QUACKD_HOME: dir } });
  const line = (JSON.parse(r.stdout) as { check: string; status: string; detail: string }[]).find((l) => l.check === 'camera');
  return line === undefined ? undefined : { status: line.status, detail: line.detail };
}

describe('the camera line', () => {
  it('a camera that is not there fails in one line with what ffmpeg said', async () => {
    const line = await cameraLine('{ body: microduck:jsonrpc, port: /dev/null, camera: { device: /dev/video-not-here } }');
    assert.equal(line?.status, 'fail');
    assert.match(line.detail, /^camera \/dev\/video-not-here: (ffmpeg exited with code \d+: .*No such file or directory|ffmpeg is not installed \(apt install ffmpeg\))$/);
  });

  it('sim2d\'s synthetic camera is ok; a robot without a camera has no line', async () => {
    assert.deepEqual(await cameraLine('{ body: microduck:sim2d, camera: synthetic }'), { status: 'ok', detail: 'synthetic: microduck:sim2d renders what its camera sees' });
    assert.equal(await cameraLine('{ body: microduck:sim2d }'), undefined);
  });
});
