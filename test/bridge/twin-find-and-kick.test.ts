/**
 * The host-firmware duck standing on the MuJoCo twin (firmware-twin.ts): quackd drives
 * microduck:jsonrpc over a real pty to quackd-fw-host, whose servos and IMU are the twin's, and
 * sees through a network camera that shows the twin's head camera (the MJPEG stream decoded by
 * ffmpeg, the ball found by colour). Nothing tells quackd where the ball is or how far it walked:
 * the scripted pilot reads the verbs' results and the observations, the walk is timed, the ball
 * at the feet is reckoned, the kick measured by the camera. What is checked is where the twin went.
 * The rate over seeds is the bench's (bench/host-find-and-kick.ts). quackd runs as the built CLI
 * in a process of its own at normal priority, as a user's does: this process is the rig, under
 * SCHED_FIFO (hardware-priority.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { onPath } from '../helpers/pty-pair.js';
import { runCli } from '../helpers/cli.js';
import { FirmwareTwin, twinCameraSetting } from './firmware-twin.js';
import { missingTools } from './rig.js';

const skip = missingTools() ?? (onPath('ffmpeg') || process.env['CI'] === 'true' ? undefined : 'needs ffmpeg');

for (const [seed, what] of [
  [1, 'walks 1.0 m over the bridge: the twin goes about 1.0 m (the walk timed at the speed its policy makes good)'],
  [2, 'find-and-kick with the scripted pilot: the camera finds the ball, the duck walks up and kicks it 0.3 m or more'],
] as const) {
  describe(`the host-firmware duck on the twin, seed ${seed}`, { skip }, () => {
    let twin: FirmwareTwin;
    let home: string;
    before(async () => {
      twin = await FirmwareTwin.start({ seed });
      home = mkdtempSync(join(tmpdir(), 'quackd-fw-twin-home-'));
      writeFileSync(join(home, 'config.yaml'), `robots:\n  duck: { body: microduck:jsonrpc, port: ${JSON.stringify(twin.port)}, camera: ${twinCameraSetting(twin.cameraUrl)} }\n`);
    });
    after(async () => {
      await twin?.close();
      rmSync(home, { recursive: true, force: true });
    });

    if (seed === 1) {
      it(what, async () => {
        const start = twin.trunk();
        const r = await runCli(['do', 'walk', '1.0', '--yes', '--robot', 'duck'], { env: { QUACKD_HOME: home }, timeoutMs: 60_000 });
        assert.equal(r.code, 0, r.stdout + r.stderr);
        assert.match(r.stdout, /walk 1\.00 +walked \d+\.\d s at 0\.30 m\/s \(no odometry on the bridge: about 1\.00 m at the 0\.13 m\/s its manifest says it makes good\)/);
        const end = twin.trunk();
        const along = (end.x - start.x) * Math.cos(start.yaw) + (end.y - start.y) * Math.sin(start.yaw);
        console.log(`# the twin went ${along.toFixed(2)} m along its heading; ${twin.goalWrites} goal records reached it`);
        assert.ok(along > 0.7 && along < 1.3, `asked 1.0 m, the twin went ${along.toFixed(2)} m along its heading`);
        assert.ok(twin.goalWrites > 250, `${twin.goalWrites} goal records reached the twin`);
      });
    } else {
      it(what, async () => {
        const ball = twin.ball();
        const r = await runCli(['run', 'find-and-kick', '--robot', 'duck', '--no-memory', '--json'], { env: { QUACKD_HOME: home }, timeoutMs: 200_000 });
        let out: { outcome: string; reason: string; transcript: string };
        try {
          out = JSON.parse(r.stdout) as typeof out;
        } catch {
          assert.fail(`no run summary (exit ${r.code}): ${r.stdout}${r.stderr}`);
        }
        // A failure says what the duck did, step by step, and where the twin's ball lay: the
        // transcript goes with the home. (A failed run exits 3, so this comes before the exit code.)
        const steps = () =>
          readFileSync(out.transcript, 'utf8')
            .split('\n')
            .filter((l) => l.includes('"type":"verb_result"'))
            .map((l) => JSON.parse(l) as { step: number; label: string; summary: string })
            .map((v) => `\n  ${v.step} ${v.label}: ${v.summary}`)
            .join('');
        assert.equal(out.outcome, 'success', out.outcome === 'success' ? '' : `${out.reason}; the twin's ball at ${JSON.stringify(twin.ball())}, from ${JSON.stringify(ball)}${steps()}`);
        assert.equal(r.code, 0, r.stdout + r.stderr);
        assert.match(out.reason, /ball_displaced_m \d+(\.\d+)? ≥ 0\.3/);
        const moved = Math.hypot(twin.ball().x - ball.x, twin.ball().y - ball.y);
        console.log(`# ${out.reason}; the twin's ball moved ${moved.toFixed(2)} m`);
        assert.ok(moved >= 0.3, `the camera said the ball moved; in the twin it moved ${moved.toFixed(2)} m`);
      });
    }
  });
}
