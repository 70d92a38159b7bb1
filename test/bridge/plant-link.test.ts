/**
 * microduck:jsonrpc's serial link as the control worker holds it, against the host firmware over
 * ptys. Unplugged: a walk then ends with the lost-link BodyError, the body refuses verbs, the
 * worker reopens the port when it is back but sends nothing on it, and the next run's hello says
 * who answers: a new boot (the firmware restarted) or the same one (a blip: it ran on while
 * unplugged, --reopen); then a walk works. A port left unread opens all the same. Exclusive: a second opener, in this process (a second
 * run, `bridge probe`) or in another quackd, is refused with one line, and a quackd killed while
 * holding the port leaves no lock behind.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { describe, it } from 'node:test';
import { BodyError, type Body, type BodyTrouble } from '../../src/bodies/body.js';
import { findBody } from '../../src/bodies/index.js';
import { runCli } from '../helpers/cli.js';
import { startLlmServer } from '../helpers/llm-server.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';
import { Rig, missingTools, sleep, waitFor } from './rig.js';

const LENIENT = ['--watchdog-ms', '5000'];

async function openBody(rig: Rig): Promise<Body> {
  const entry = findBody('microduck:jsonrpc');
  assert.ok(entry !== undefined);
  return entry.load({ seed: 1, settings: { port: rig.hostPath } });
}

async function targets(body: Body): Promise<{ targets: number; torque: boolean }> {
  const d = (await body.observe()).data;
  return { targets: Number(d['targets']), torque: d['torque'] === true };
}

/** The next run's beginRun, once the worker has the port again (until then it refuses: the link is down). */
async function nextRun(body: Body): Promise<void> {
  let last: unknown;
  for (let i = 0; i < 60; i++) {
    try {
      await body.beginRun?.();
      return;
    } catch (err) {
      last = err;
      await sleep(100);
    }
  }
  throw last instanceof Error ? last : new Error(String(last));
}

describe('microduck:jsonrpc: the link goes and comes back', { skip: missingTools() }, () => {
  it('unplugged mid-walk: the walk ends with the lost-link error; back with a restarted firmware (a new boot id), the worker sends it nothing until a verb, and a walk works', async () => {
    const rig = await Rig.start(LENIENT);
    const body = await openBody(rig);
    try {
      await body.beginRun?.();
      const boot = body.link?.boot;
      // How it ends is taken at once: it may end while the unplug is still being waited for.
      const walking = body.perform({ verb: 'walk', args: { metres: 2 } }).then(
        (r) => r,
        (err: unknown) => err,
      );
      await sleep(400);
      await rig.unplug();
      const ended = await walking;
      assert.ok(ended instanceof BodyError && /^serial link to .* lost; the firmware's watchdog cuts torque within \d+ ms, and quackd sends torque off once the link is back$/.test(ended.message), String(ended));
      await assert.rejects(body.perform({ verb: 'quack', args: {} }), BodyError);
      await assert.rejects(body.beginRun?.() ?? Promise.resolve(), /serial link to .* lost/, 'a run began on a link that is down');

      await rig.startLink();
      await rig.startFirmware(LENIENT);
      await nextRun(body);
      assert.notEqual(body.link?.boot, boot, 'the restarted firmware has a new boot id');
      // The loop held through it all, and the reopened link was sent nothing: the new firmware
      // booted limp and has applied no target.
      await sleep(300);
      assert.deepEqual(await targets(body), { targets: 0, torque: false });
      const r = await body.perform({ verb: 'walk', args: { metres: 0.3 } });
      assert.equal(r.ok, true, r.summary);
      assert.ok((await targets(body)).targets >= 10, 'the walk on the reopened link streamed (almost) nothing');
    } finally {
      await body.close();
      await rig.cleanup();
    }
  });

  it('unplugged between verbs while the firmware runs on (--reopen): trouble is reported, and back, the same boot id says it was a blip', async () => {
    const rig = await Rig.start([...LENIENT, '--reopen']);
    const body = await openBody(rig);
    const troubles: BodyTrouble[] = [];
    const unwatch = body.onTrouble?.((t) => troubles.push(t));
    try {
      await body.beginRun?.();
      const boot = body.link?.boot;
      await body.perform({ verb: 'quack', args: {} });
      await rig.unplug({ keepFirmware: true });
      await waitFor('the lost link to be reported', () => troubles.length > 0);
      assert.equal(troubles[0]?.kind, 'link-lost');
      await rig.startLink();
      await nextRun(body);
      assert.equal(body.link?.boot, boot);
      const q = await body.perform({ verb: 'quack', args: {} });
      assert.equal(q.ok, true, q.summary);
      assert.match(rig.firmwareLog(), /link back/);
    } finally {
      unwatch?.();
      await body.close();
      await rig.cleanup();
    }
  });
});

describe('microduck:jsonrpc opens a port nobody has read for a while', { skip: missingTools() }, () => {
  it('the firmware dropped the answer to the first hello (its output backed up), the second is answered', async () => {
    const rig = await Rig.start();
    try {
      await sleep(3000);
      const body = await openBody(rig);
      assert.ok(Number((await body.observe()).data['tx_dropped']) > 0, 'the firmware never backed up: this test tests nothing');
      await body.close();
    } finally {
      await rig.cleanup();
    }
  });
});

/** What quackd says when the port is held, on either path (open-refusal.ts): never serialport's own words. */
const locked = (port: string) => `cannot open ${port}: another program has it open (another quackd run, or a serial monitor?)`;
/** A run that could not open its body ends on one outcome line that says why. */
const refusedRun = (stdout: string, port: string) => assert.ok(stdout.split('\n').some((l) => l.startsWith(`FAIL error — ${locked(port)} · 0 steps`)), stdout);

describe('microduck:jsonrpc: one opener at a time', { skip: missingTools() }, () => {
  it('while a body holds the port, a second run and `bridge probe` in the same process are refused with the same one line, exit 3', async () => {
    const rig = await Rig.start();
    const body = await openBody(rig);
    try {
      const env = { QUACKD_HOME: tempDir('quackd-lock-') };
      const run = await quackd(['run', 'hello-world', '--robot', 'microduck:jsonrpc', '--port', rig.hostPath], { env });
      assert.equal(run.code, 3, run.stdout + run.stderr);
      refusedRun(run.stdout, rig.hostPath);
      const probe = await quackd(['bridge', 'probe', '--port', rig.hostPath], { env });
      assert.equal(probe.code, 3, probe.stdout + probe.stderr);
      assert.equal(probe.stderr, `quackd: ${locked(rig.hostPath)}\n`);
      // The refused opener did not disturb the holder.
      assert.equal((await body.perform({ verb: 'quack', args: {} })).ok, true);
    } finally {
      await body.close();
      await rig.cleanup();
    }
  });

  it('another quackd is refused while a run holds the port; killed (SIGKILL), it leaves no lock behind', async () => {
    const rig = await Rig.start();
    const server = await startLlmServer();
    try {
      server.reply({ kind: 'hang' });
      let holder: ChildProcess | undefined;
      const held = runCli(['run', 'hello-world', '--robot', 'microduck:jsonrpc', '--port', rig.hostPath, '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'm', '--timeout', '60'], {
        env: { QUACKD_HOME: tempDir('quackd-lock-'), OPENAI_API_KEY: 'test-key' },
        // It is killed below; the limit only keeps a hung one from outliving the test.
        timeoutMs: 120_000,
        onSpawn: (child) => (holder = child),
      });
      // It holds the port once it asks the model what to do. A fresh process opening the duck (its
      // control worker, five policy sessions) took over 15 s at load 13; the lock is what is tested.
      await waitFor('the first run to ask its model', () => server.requests.length > 0, 60_000);
      const second = await runCli(['run', 'hello-world', '--robot', 'microduck:jsonrpc', '--port', rig.hostPath], { env: { QUACKD_HOME: tempDir('quackd-lock-') } });
      assert.equal(second.code, 3, second.stdout + second.stderr);
      refusedRun(second.stdout, rig.hostPath);
      holder?.kill('SIGKILL');
      const killed = await held;
      assert.equal(killed.signal, 'SIGKILL');
      const body = await openBody(rig);
      assert.equal((await body.perform({ verb: 'quack', args: {} })).ok, true);
      await body.close();
    } finally {
      await server.close();
      await rig.cleanup();
    }
  });
});
