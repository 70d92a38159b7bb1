/** A robot's `camera:` in config.yaml, checked with its other settings, each problem on its line. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfigFile } from '../../src/config/file.js';
import { Fleet } from '../../src/runtime/fleet.js';
import { tempDir } from '../helpers/tmp.js';

function home(config: string): string {
  const dir = tempDir('quackd-camera-config-');
  writeFileSync(join(dir, 'config.yaml'), config);
  return dir;
}

describe('camera: in a robot\'s config', () => {
  it('a duck\'s camera is read with its defaults filled', async () => {
    const h = home('robots:\n  bench:\n    body: microduck:jsonrpc\n    port: /dev/ttyACM0\n    camera: { device: /dev/video0, fov_deg: 70, mount: { height_m: 0.2 } }\n');
    const { config } = await loadConfigFile({ QUACKD_HOME: h });
    assert.deepEqual(new Fleet(config.robots).resolve('bench').settings['camera'], {
      device: '/dev/video0',
      width: 640,
      height: 480,
      fov_deg: 70,
      fps: 5,
      deadline_ms: 3000,
      mount: { height_m: 0.2, pitch_deg: 0, ahead_m: 0 },
    });
  });

  it('a bad device, a field of view past 180° and an unknown key are refused on their lines', async () => {
    const h = home('robots:\n  bench:\n    body: microduck:jsonrpc\n    port: /dev/ttyACM0\n    camera:\n      device: video0\n      fov_deg: 200\n      zoom: 2\n');
    await assert.rejects(loadConfigFile({ QUACKD_HOME: h }), (err: Error) => {
      assert.match(err.message, /config\.yaml:6: robots\.bench\.camera\.device: a V4L2 device \(\/dev\/video0\), rpicam \(or rpicam:1\), a stream \(http:\/\/… or rtsp:\/\/…\), or synthetic/);
      assert.match(err.message, /config\.yaml:7: robots\.bench\.camera\.fov_deg: /);
      assert.match(err.message, /robots\.bench\.camera.*zoom/);
      return true;
    });
  });
});
