/**
 * `quackd health`, in-process with a temp QUACKD_HOME: one aligned line per check, exit 1 only
 * when one fails; a broken policy slot and a damaged store each fail in one line naming what is
 * wrong; `--json` for scripts. Where onnxruntime-node cannot load, the runtime line says
 * WebAssembly (in a child: the runtime is imported once per process, and the hook that makes
 * the native import fail must be in place before it).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { fifoRefused, loopSchedulingHere } from '../../src/control/realtime.js';
import { bundledPolicyDir } from '../../src/policy/bundled.js';
import { DATA_FILE } from '../../src/memory/store.js';
import { MAIN, assertFreshBuild, childEnv } from '../helpers/cli.js';
import { quackd } from '../helpers/quackd.js';
import { needsRoot } from '../helpers/skip.js';
import { tempDir } from '../helpers/tmp.js';
import { zeroRange } from '../memory/damage.js';
import { policyFolder } from '../policy/policy-folders.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHECKS = ['config', 'model', 'imu', 'policy runtime', 'policies', 'scheduling', 'heap trim', 'store', 'service'];
/** What this user may give the control loop, as the loop asks for it (the scheduling line's verdict). */
const SCHEDULING = fifoRefused(await loopSchedulingHere()) ? 'warn' : 'ok';

interface Row {
  readonly check: string;
  readonly status: string;
  readonly detail: string;
}

/** The printed lines, split on the columns the command aligns. */
function rows(stdout: string): Row[] {
  const lines = stdout.trimEnd().split('\n');
  const statusAt = lines.map((l) => l.search(/ {2}(ok|warn|fail) /) + 2);
  assert.equal(new Set(statusAt).size, 1, `statuses in one column:\n${stdout}`);
  const at = statusAt[0] ?? 0;
  return lines.map((l) => {
    const m = /^(ok|warn|fail) +(.*)$/.exec(l.slice(at));
    assert.ok(m !== null, l);
    return { check: l.slice(0, at).trim(), status: m[1] ?? '', detail: m[2] ?? '' };
  });
}

const byName = (rs: readonly Row[], name: string): Row => {
  const r = rs.find((x) => x.check === name);
  assert.ok(r !== undefined, `no ${name} line`);
  return r;
};

function home(config?: string): { env: NodeJS.ProcessEnv; dir: string } {
  const dir = tempDir('quackd-health-');
  if (config !== undefined) writeFileSync(join(dir, 'config.yaml'), config);
  return { env: { QUACKD_HOME: dir }, dir };
}

describe('quackd health', () => {
  it('a fresh home is healthy: every check ok but the service, which is not running (a warning, exit 0)', async () => {
    const { env } = home();
    for (const robot of ['microduck:sim2d', 'microduck:mujoco']) {
      const r = await quackd(['health', '--robot', robot], { env });
      assert.equal(r.code, 0, r.stderr);
      const rs = rows(r.stdout);
      assert.deepEqual(rs.map((x) => x.check), CHECKS);
      assert.deepEqual(rs.map((x) => x.status), ['ok', 'ok', 'ok', 'ok', 'ok', robot === 'microduck:sim2d' ? 'ok' : SCHEDULING, 'ok', 'ok', 'warn']);
      assert.equal(byName(rs, 'heap trim').detail, 'malloc_trim from glibc: a service gives back the memory it freed once idle');
      assert.match(byName(rs, 'config').detail, new RegExp(`config\\.yaml \\(absent: built-in defaults\\) · robot ${robot}$`));
      assert.match(byName(rs, 'store').detail, /^none yet in .*memory: the first run creates it$/);
      assert.equal(byName(rs, 'service').detail, 'not running');
    }
    // A robot that runs policies: the runtime is loaded and named; every bundled slot loads.
    const twin = rows((await quackd(['health', '--robot', 'microduck:mujoco'], { env })).stdout);
    assert.match(byName(twin, 'policy runtime').detail, /^onnxruntime-node 1\.\d+\.\d+ \(native\)$/);
    assert.equal(byName(twin, 'policies').detail, 'all 5 slots load (5 bundled)');
    // The simulator runs none: nothing to load, and it says so rather than loading onnxruntime.
    const sim = rows((await quackd(['health'], { env })).stdout);
    assert.equal(byName(sim, 'policy runtime').detail, 'none needed: microduck:sim2d runs no policies');
    assert.equal(byName(sim, 'scheduling').detail, 'none needed: microduck:sim2d runs no control loop');
  });

  it('scheduling: SCHED_FIFO 10 for the control loop where the user may ask for it; normal priority, with chrt\'s words and a warning, where not', { skip: needsRoot('to take CAP_SYS_NICE away (setpriv)') }, async () => {
    assertFreshBuild();
    const { env } = home();
    const allowed = rows((await quackd(['health', '--robot', 'microduck:jsonrpc'], { env })).stdout);
    assert.deepEqual(byName(allowed, 'scheduling'), { check: 'scheduling', status: 'ok', detail: 'SCHED_FIFO 10 for the control loop' });
    // As a user without CAP_SYS_NICE or an RLIMIT_RTPRIO runs it: the built CLI, under prlimit and setpriv.
    const { stdout } = await promisify(execFile)('prlimit', ['--rtprio=0:0', 'setpriv', '--bounding-set', '-sys_nice', process.execPath, MAIN, 'health', '--robot', 'microduck:jsonrpc'], {
      env: childEnv({ ...env, NO_COLOR: '1' }),
    }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    assert.deepEqual(byName(rows(stdout), 'scheduling'), {
      check: 'scheduling',
      status: 'warn',
      detail: "normal priority (chrt: failed to set pid 0's policy: Operation not permitted) for the control loop: ticks may come late on a busy board",
    });
  });

  it('counts what the robot remembers, and changes nothing in the store', async () => {
    const { env, dir } = home();
    assert.equal((await quackd(['memory', 'add', 'the charger is under the desk'], { env })).code, 0);
    assert.equal((await quackd(['run', 'hello-world'], { env })).code, 0);
    const before = readFileSync(join(dir, 'memory', DATA_FILE));
    const r = await quackd(['health'], { env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(byName(rows(r.stdout), 'store').detail, /^1 note, 1 episode for microduck:sim2d · .*memory$/);
    assert.deepEqual(readFileSync(join(dir, 'memory', DATA_FILE)), before);
  });

  it('a broken policy slot fails, naming the slot and why in one line, and exits 1', async () => {
    const manifest = JSON.parse(readFileSync(join(bundledPolicyDir('walk'), 'manifest.json'), 'utf8')) as Record<string, unknown>;
    const walk = policyFolder('walk', { ...manifest, obs_len: 61 });
    const { env } = home(`robots:\n  twin:\n    body: microduck:mujoco\n    policies:\n      walk: ${walk}\n`);
    const r = await quackd(['health', '--robot', 'twin'], { env });
    assert.equal(r.code, 1, r.stderr);
    const rs = rows(r.stdout);
    assert.equal(rs.length, CHECKS.length);
    const policies = byName(rs, 'policies');
    assert.equal(policies.status, 'fail');
    assert.match(policies.detail, /^walk: .*policy\.onnx takes 53 inputs but manifest\.json says obs_len 61/);
    // The other slots and checks still report.
    assert.equal(byName(rs, 'config').status, 'ok');
    assert.match(byName(rs, 'config').detail, /robot twin \(microduck:mujoco\)$/);
    assert.equal(byName(rs, 'policy runtime').status, 'ok');
  });

  it('a damaged store fails in one line, exit 1, with no crash', async () => {
    const { env, dir } = home();
    assert.equal((await quackd(['memory', 'add', 'the ball rolls under the sofa'], { env })).code, 0);
    zeroRange(join(dir, 'memory', DATA_FILE), 24, 32);
    const r = await quackd(['health'], { env });
    assert.equal(r.code, 1, r.stderr);
    const rs = rows(r.stdout);
    assert.equal(rs.length, CHECKS.length);
    const store = byName(rs, 'store');
    assert.equal(store.status, 'fail');
    assert.match(store.detail, /^memory store in .*memory: the data file is not an LMDB database \(meta page 0: no LMDB magic number\)$/);
  });

  it('a config file that does not parse fails the config check with its line; what needs the robot is not checked', async () => {
    const { env } = home('robots:\n  twin: [\n');
    const r = await quackd(['health', '--robot', 'twin'], { env });
    assert.equal(r.code, 1, r.stderr);
    const rs = rows(r.stdout);
    assert.equal(byName(rs, 'config').status, 'fail');
    assert.match(byName(rs, 'config').detail, /config\.yaml:3: /);
    assert.deepEqual(byName(rs, 'policies'), { check: 'policies', status: 'warn', detail: 'not checked: the config does not load' });
    assert.equal(byName(rs, 'store').status, 'ok');
  });

  it('with no --robot, checks the fleet\'s robot when it has one alone (a configured duck, not the simulator); of several, the simulator', async () => {
    const one = home('robots:\n  kitchen-duck:\n    body: microduck:mujoco\n');
    const r = await quackd(['health'], { env: one.env });
    assert.equal(r.code, 0, r.stderr);
    assert.match(byName(rows(r.stdout), 'config').detail, /robot kitchen-duck \(microduck:mujoco\)$/);
    assert.match(byName(rows(r.stdout), 'policies').detail, /^all 5 slots load/);
    const two = home('robots:\n  kitchen-duck:\n    body: microduck:mujoco\n  hall-duck:\n    body: microduck:mujoco\n');
    const both = await quackd(['health'], { env: two.env });
    assert.equal(both.code, 0, both.stderr);
    assert.match(byName(rows(both.stdout), 'config').detail, /robot microduck:sim2d$/);
  });

  it('--json: an array of {check, status, detail}, the same checks in the same order', async () => {
    const { env } = home();
    const r = await quackd(['health', '--json', '--robot', 'microduck:mujoco'], { env });
    assert.equal(r.code, 0, r.stderr);
    const list = JSON.parse(r.stdout) as Record<string, unknown>[];
    assert.deepEqual(list.map((x) => x['check']), CHECKS);
    for (const x of list) {
      assert.deepEqual(Object.keys(x).sort(), ['check', 'detail', 'status']);
      assert.ok(['ok', 'warn', 'fail'].includes(String(x['status'])));
      assert.equal(typeof x['detail'], 'string');
    }
  });

  it('an unknown robot or a stray argument is a one-line usage error (exit 2); --help lists health', async () => {
    const { env } = home('robots:\n  kitchen-duck:\n    body: microduck:sim2d\n');
    const typo = await quackd(['health', '--robot', 'kitchen-dcuk'], { env });
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /^quackd: --robot: unknown robot "kitchen-dcuk" \(did you mean "kitchen-duck"\?\)/);
    assert.equal(typo.stderr.trim().split('\n').length, 1);
    assert.equal((await quackd(['health', 'now'], { env })).code, 2);
    assert.match((await quackd(['--help'])).stdout, /^ {2}health +check /m);
    assert.match((await quackd(['health', '--help'])).stdout, /usage: quackd health \[--robot NAME\|KEY\] \[--timeout S\] \[--json\]/);
    assert.equal((await quackd(['health', '--timeout', '0'], { env })).code, 2);
  });

  it('--timeout is how long each check may take: a service that accepts and never answers fails on it, the rest report', async (t) => {
    const { env, dir } = home();
    const stuck = createServer(() => undefined);
    await new Promise<void>((resolve) => stuck.listen(join(dir, 'quackd.sock'), resolve));
    t.after(() => {
      stuck.close();
    });
    const started = performance.now();
    const r = await quackd(['health', '--timeout', '0.4'], { env });
    assert.ok(performance.now() - started < 5000, 'the service line waited its 0.4 s, not the default 10 s');
    assert.equal(r.code, 1, r.stdout);
    const rs = rows(r.stdout);
    assert.deepEqual(byName(rs, 'service'), { check: 'service', status: 'fail', detail: 'no answer within 0.4 s' });
    assert.equal(byName(rs, 'store').status, 'ok');
  });

  it('where onnxruntime-node cannot load, the runtime line says WebAssembly and why; the policies load on it', async () => {
    const { env } = home();
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--import', './test/policy/fixtures/no-onnxruntime-node.mjs', 'src/main.ts', 'health', '--robot', 'microduck:mujoco', '--json'], {
      cwd: ROOT,
      env: childEnv({ ...env, NO_COLOR: '1', QUACKD_LOG_JSON: '1' }),
      timeout: 60_000,
    });
    const list = JSON.parse(stdout) as Row[];
    const runtime = list.find((x) => x.check === 'policy runtime');
    assert.equal(runtime?.status, 'ok');
    assert.match(runtime.detail, /^onnxruntime-web 1\.\d+\.\d+ \(WebAssembly: onnxruntime-node cannot load here \(onnxruntime_binding\.node: cannot open shared object file \(simulated by the test\)\)\)$/);
    assert.deepEqual(list.find((x) => x.check === 'policies'), { check: 'policies', status: 'ok', detail: 'all 5 slots load (5 bundled)' });
  });
});
