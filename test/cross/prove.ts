/**
 * The proof that a bundle runs on its target, shared by arm64.test.ts and armv7.test.ts: built by
 * cross/build.sh, every binary of the target's architecture, and its own Node under qemu running
 * what a person first runs on a Pi: --version, memory (LMDB's native binding), bridge probe
 * against the host firmware over a pty (serialport's), the BNO055's I²C bus opened through the
 * cross-built i2c-bus, koffi's malloc_trim (health), a sim2d run with the fake pilot, and the MuJoCo
 * duck turning on its ONNX policy (onnxruntime-node on arm64, onnxruntime-web on armv7).
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readIndexed } from '../helpers/mcap.js';
import { tempDir } from '../helpers/tmp.js';
import { Rig } from '../bridge/rig.js';
import { buildBundle, missingForTarget, runUnderQemu, type Built, type Target } from './qemu.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

// Two steps (find the ball, turn to it) keep the emulated run short; the step budget ends it.
const TURN_TO_BALL = `---
description: "Find the ball and turn to face it."
robot: microduck:mujoco
verbs: [search_scan, turn, walk, kick, quack]
budgets: { steps: 2, llm_calls: 5, seconds: 300 }
success_when: ball_displaced_m >= 0.3
---
# Turn to the ball

You are a Microduck in a living room. A ball is somewhere in the room.

## Strategy
1. search_scan to find the ball.
2. turn to face it.
`;

/**
 * Seconds for each probe answer and each health check: emulated, the bundle's Node runs several
 * times slower than on the board, and far slower again when other work shares this machine's CPUs
 * (CI with four busy processes: `bridge probe`'s 1 s hello and `health`'s 10 s per check were
 * missed). Generous here only: the products' defaults are for a real board.
 */
const EMULATED_TIMEOUT_S = 120;

export interface Expect {
  readonly machine: 'AArch64' | 'ARM';
  /** `quackd health`'s policy runtime line for the MuJoCo duck. */
  readonly runtime: RegExp;
  /** What compresses a recording's chunks under the bundle's Node (src/recording/zstd.ts). */
  readonly zstd: 'node:zlib' | '@foxglove/wasm-zstd';
}

export function proveBundle(target: Target, expect: Expect): void {
  describe(`the ${target} bundle`, { skip: missingForTarget(target) }, () => {
    let built: Built;
    let rig: Rig | undefined;
    const home = tempDir(`quackd-${target}-home-`);
    const out = tempDir(`quackd-${target}-out-`);
    const quackd = (...args: string[]) => runUnderQemu(target, built.dir, args, home);
    before(() => {
      built = buildBundle(target, out);
    });
    after(async () => {
      await rig?.cleanup();
    });

    it('is one versioned folder in a tarball, its size printed, every binary checked', () => {
      assert.match(built.buildOutput, new RegExp(`all \\d+ binaries are ${expect.machine}\\n`));
      assert.match(built.buildOutput, new RegExp(`built .*/quackd-${VERSION}-${target}\\.tar\\.gz: \\d+ MB \\(\\d+ MB unpacked\\)`));
      const listed = execFileSync('tar', ['-tzf', built.tarball], { encoding: 'utf8', maxBuffer: 64 << 20 }).split('\n');
      for (const part of ['bin/quackd', 'node/bin/node', 'lib/quackd.cjs', 'lib/main.js', 'lib/ducks/starters/hello-world.duck', 'lib/policy/bundled/walk/policy.onnx', 'systemd/install.sh', 'systemd/quackd.service']) {
        assert.ok(listed.includes(`quackd-${VERSION}-${target}/${part}`), `${part} is in the tarball`);
      }
    });

    it('check-arch.sh fails, naming it, when a binary of the build machine slipped in', () => {
      const planted = join(built.dir, 'node_modules/planted');
      mkdirSync(planted);
      copyFileSync('/bin/true', join(planted, 'binding.node'));
      try {
        const r = spawnSync(join(REPO, 'cross/check-arch.sh'), [built.dir, target], { encoding: 'utf8' });
        assert.equal(r.status, 1);
        assert.match(r.stderr, new RegExp(`^WRONG {2}.+ {2}node_modules/planted/binding\\.node \\(the bundle is for ${target}: ${expect.machine}\\)$`, 'm'));
        assert.match(r.stderr, new RegExp(`check-arch.sh: 1 of \\d+ binaries in .* are not ${expect.machine}\\n$`));
      } finally {
        rmSync(planted, { recursive: true, force: true });
      }
    });

    it('its own Node runs quackd --version', async () => {
      const r = await quackd('--version');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, `${VERSION}\n`);
    });

    it('memory add and show go through LMDB', async () => {
      const add = await quackd('memory', 'add', 'the ball hides under the sofa');
      assert.equal(add.code, 0, add.stderr);
      const show = await quackd('memory', 'show');
      assert.equal(show.code, 0, show.stderr);
      assert.match(show.stdout, /^microduck:sim2d: 1 note, 0 earlier runs/);
      assert.match(show.stdout, /person {2}the ball hides under the sofa$/m);
    });

    it('bridge probe talks to the host firmware over a pty', async () => {
      // 10 Hz, not 50: an emulated reader is several times slower, and a stream it cannot keep up
      // with overflows the pty mid-frame (a CRC error, which probe rightly reports with exit 3).
      rig = await Rig.start(['--state-hz', '10']);
      const r = await quackd('bridge', 'probe', '--port', rig.hostPath, '--pings', '3', '--timeout', String(EMULATED_TIMEOUT_S));
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /firmware {2}quackd-fw 0\.1\.0 on host · protocol 1/);
      assert.match(r.stdout, /rtt +median \d+\.\d\d ms over 3 pings/);
    });

    it('runs hello-world on sim2d with the fake pilot', async () => {
      const r = await quackd('run', 'hello-world');
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^OK success — I quacked hello\./m);
    });

    it('carries i2c-bus built for its Node: the IMU health line opens the bus (none here) instead of missing the addon', async () => {
      assert.ok(existsSync(join(built.dir, 'node_modules/i2c-bus/build/Release/i2c.node')), 'the addon is in the bundle');
      assert.match(readFileSync(join(built.dir, 'BUNDLE.txt'), 'utf8'), /^i2c-bus \(the BNO055's reads\) built for it\.$/m);
      writeFileSync(join(home, 'config.yaml'), 'robots:\n  duck:\n    body: microduck:feetech\n    port: /dev/ttyQUACKD-NONE\n    imu:\n      bus: 77\n');
      try {
        const r = await quackd('health', '--robot', 'duck', '--timeout', String(EMULATED_TIMEOUT_S));
        assert.match(r.stdout, /^imu +fail +no BNO055 answers on i2c-77 at 0x28: ENOENT: no such file or directory, open '\/dev\/i2c-77'$/m, r.stdout + r.stderr);
        assert.doesNotMatch(r.stdout, /i2c-bus addon is not installed/);
      } finally {
        rmSync(join(home, 'config.yaml'), { force: true });
      }
    });

    it('health names the ONNX runtime that runs the policies, and finds malloc_trim from glibc through the bundled koffi', async () => {
      const r = await quackd('health', '--robot', 'microduck:mujoco', '--timeout', String(EMULATED_TIMEOUT_S));
      assert.match(r.stdout, expect.runtime);
      assert.match(r.stdout, /^policies +ok +all 5 slots load/m);
      assert.match(r.stdout, /^heap trim +ok +malloc_trim from glibc/m);
    });

    it('the MuJoCo duck turns to the ball on its turn policy', async () => {
      const duck = join(home, 'turn-to-ball.duck');
      writeFileSync(duck, TURN_TO_BALL);
      const r = await quackd('run', duck);
      assert.match(r.stdout, /^ {2}1 {2}search_scan +ball found at bearing/m, r.stderr);
      assert.match(r.stdout, /^ {2}2 {2}turn -?\d+ +turned \d+° (left|right), commanded vyaw [\d.]+ rad\/s \([^)]*\); ball at bearing/m, r.stderr);
      // The budget of two steps ends it: exit 1, not a crash (3) or an input error (2).
      assert.equal(r.code, 1, r.stderr);
      // Its recording, long enough to be compressed, by the zstd this Node has.
      const recordings = join(home, 'recordings');
      const [file] = readdirSync(recordings)
        .filter((f) => f.endsWith('.mcap'))
        .sort((a, b) => statSync(join(recordings, b)).mtimeMs - statSync(join(recordings, a)).mtimeMs);
      assert.ok(file !== undefined, `a recording in ${recordings}`);
      const back = await readIndexed(join(recordings, file));
      assert.ok(back.compressions.includes('zstd'), back.compressions.join(' '));
      assert.equal(back.metadata.get('quackd.recording')?.get('zstd'), expect.zstd);
    });
  });
}
