/**
 * onnxruntime-node's telemetry stays off in quackd's processes: a run whose policies load in the
 * control worker leaves no device id or event database under the user's home, and no
 * /tmp/mat-debug-<pid>.log, unless the user's environment asked for it.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ONNX_TELEMETRY_OFF } from '../../src/policy/telemetry.js';
import { childEnv, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

describe("onnxruntime's telemetry", () => {
  it('a run on a policy body writes nothing of it: no ~/.cache/Microsoft, no /tmp/mat-debug-<pid>.log', async () => {
    const home = tempDir('quackd-telemetry-');
    const env = childEnv({ HOME: home, QUACKD_HOME: join(home, '.quackd') });
    delete env[ONNX_TELEMETRY_OFF.name];
    let pid: number | undefined;
    const run = await runCli(['run', 'find-and-kick', '--robot', 'microduck:mujoco', '--no-memory', '--no-record'], { env, onSpawn: (child: ChildProcess) => (pid = child.pid) });
    const debugLog = `/tmp/mat-debug-${pid ?? 0}.log`;
    try {
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /OK success/, "the run's policies loaded and walked");
      assert.ok(!existsSync(join(home, '.cache', 'Microsoft')), `onnxruntime wrote its telemetry store under ${join(home, '.cache', 'Microsoft')}`);
      assert.ok(!existsSync(debugLog), `onnxruntime left ${debugLog}`);
    } finally {
      rmSync(debugLog, { force: true });
    }
  });
});
