/**
 * A fall on microduck:jsonrpc, against the host firmware over a pty: a walk is running when the
 * firmware's simulated IMU tips over (SIGUSR1 starts its `--tilt-at USR1:85` step), the loop ends
 * the walk `failed — fell`, nothing more reaches the firmware, and the duck goes to its safe state:
 * torque off, confirmed by the firmware (the default), or its last pose held (after_fall: hold).
 * A walk while it lies there ends at once as `fallen`; once it is stood up (the next SIGUSR1), a
 * walk works. And `quackd run` on it ends as a failure that says the duck fell.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Body } from '../../src/bodies/body.js';
import { findBody } from '../../src/bodies/index.js';
import type { TranscriptLine } from '../../src/transcript/events.js';
import { openaiToolCalls, startLlmServer } from '../helpers/llm-server.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';
import { Rig, missingTools, sleep } from './rig.js';

/** Knocked over by the first SIGUSR1, stood up by the second; the watchdog is lenient for a loaded machine. */
const FALLS = ['--watchdog-ms', '5000', '--tilt-at', 'USR1:85', '--tilt-at', 'USR1:0'];

async function openBody(rig: Rig, settings: Record<string, unknown> = {}): Promise<Body> {
  const entry = findBody('microduck:jsonrpc');
  assert.ok(entry !== undefined);
  return entry.load({ seed: 1, settings: { port: rig.hostPath, ...settings } });
}

interface Seen {
  readonly targets: number;
  readonly torque: boolean;
  readonly summary: string;
}

async function seen(body: Body): Promise<Seen> {
  const o = await body.observe();
  return { targets: Number(o.data['targets']), torque: o.data['torque'] === true, summary: o.summary };
}

/** A 2 m walk (6.7 s on its clock) knocked over once it has streamed a while. */
async function walkAndFall(rig: Rig, body: Body) {
  const before = await seen(body);
  const t0 = performance.now();
  const walking = body.perform({ verb: 'walk', args: { metres: 2 } });
  await sleep(700);
  rig.signalFirmware('SIGUSR1');
  const r = await walking;
  return { r, before, seconds: (performance.now() - t0) / 1000 };
}

describe('microduck:jsonrpc falls (torque off after a fall, the default)', { skip: missingTools() }, () => {
  let rig: Rig;
  let body: Body;
  before(async () => {
    rig = await Rig.start(FALLS);
    body = await openBody(rig);
  });
  after(async () => {
    await body?.close();
    await rig?.cleanup();
  });

  it('a walk that tips over ends failed — fell, nothing more reaches the firmware, and it confirms torque off', async () => {
    const { r, before, seconds } = await walkAndFall(rig, body);
    assert.equal(r.ok, false);
    assert.match(r.summary, /^walk 2\.00 m: failed — fell after \d+\.\d s \(tilted \d+°\)(?:; the control loop missed \d+ ticks? \(a gap of \d+ ms at worst: the host too busy\))?; torque off, confirmed by the firmware$/);
    assert.ok(seconds < 6, `the walk ran on to its time (${seconds.toFixed(1)} s): the fall did not end it`);
    assert.equal(r.data?.['fell'], true);
    assert.equal(r.data?.['torque_off_confirmed'], true);
    assert.ok(Number(r.data?.['tilt_deg']) > 45, `tilt ${String(r.data?.['tilt_deg'])}°`);
    const fallen = await seen(body);
    assert.equal(fallen.torque, false, 'the firmware still holds torque');
    // Every target the plant sent during the walk was applied: one sent after the torque off
    // would have been refused (torque is off) and counted as a send failure.
    const applied = fallen.targets - before.targets;
    const sent = Number(r.data?.['targets_sent']);
    assert.ok(applied > 5, `the walk streamed only ${applied} targets before the fall`);
    assert.equal(r.data?.['target_send_failures'], 0);
    assert.ok(applied >= sent, `${sent} sent, ${applied} applied: some came after the torque off (data ${JSON.stringify(r.data)})`);
    await sleep(400);
    assert.equal((await seen(body)).targets, fallen.targets, 'targets reached the firmware after the fall');
    assert.match((await body.observe()).summary, /torque off \(limp\) · tilted \d+°/);
  });

  it('a walk while the duck is down ends at once as fallen, and does not switch torque on', async () => {
    const down = await seen(body);
    const r = await body.perform({ verb: 'walk', args: { metres: 1 } });
    assert.equal(r.ok, false);
    assert.match(r.summary, /^walk 1\.00 m: failed — fallen: the duck is down \(tilted \d+°\): stand it up first; torque off, confirmed by the firmware$/);
    assert.equal(r.data?.['fell'], true);
    const still = await seen(body);
    assert.equal(still.torque, false);
    assert.equal(still.targets, down.targets);
  });

  it('once the firmware reads upright again, a walk works', async () => {
    rig.signalFirmware('SIGUSR1');
    let lastSummary = '';
    for (let i = 0; i < 50 && !/upright/.test(lastSummary); i++) {
      lastSummary = (await seen(body)).summary;
      if (!/upright/.test(lastSummary)) await sleep(50);
    }
    assert.match(lastSummary, /upright/);
    const start = await seen(body);
    const r = await body.perform({ verb: 'walk', args: { metres: 0.3 } });
    assert.equal(r.ok, true, r.summary);
    const end = await seen(body);
    assert.equal(end.torque, true);
    // 50 a second on a quiet machine; a loaded one skips ticks. Any number says the loop drives again.
    assert.ok(end.targets - start.targets >= 10, `${end.targets - start.targets} targets applied`);
  });
});

describe('microduck:jsonrpc falls with after_fall: hold', { skip: missingTools() }, () => {
  it('the walk ends failed — fell, torque stays on holding the last pose, and no target is sent after it', async () => {
    const rig = await Rig.start(FALLS);
    const body = await openBody(rig, { after_fall: 'hold' });
    try {
      const { r, before } = await walkAndFall(rig, body);
      assert.match(r.summary, /^walk 2\.00 m: failed — fell after \d+\.\d s \(tilted \d+°\)(?:; the control loop missed \d+ ticks? \(a gap of \d+ ms at worst: the host too busy\))?; holding its last pose \(after_fall: hold\)$/);
      assert.equal(r.data?.['fell'], true);
      const fallen = await seen(body);
      assert.equal(fallen.torque, true);
      assert.ok(fallen.targets - before.targets > 5, 'the walk streamed nothing before the fall');
      await sleep(400);
      assert.equal((await seen(body)).targets, fallen.targets, 'targets reached the firmware after the fall');
    } finally {
      await body.close();
      await rig.cleanup();
    }
  });
});

describe('quackd run on microduck:jsonrpc when the duck falls', { skip: missingTools() }, () => {
  it('the step says it fell, the run ends as a failure (exit 1), and the stop is clean', async () => {
    const rig = await Rig.start(FALLS);
    const server = await startLlmServer();
    try {
      const home = tempDir('quackd-fall-');
      // The model walks, then gives up when it hears the duck fell (a scripted model: it says what it is told to).
      server.reply(openaiToolCalls([{ name: 'walk', arguments: JSON.stringify({ metres: 2 }) }]), openaiToolCalls([{ name: 'declare_failure', arguments: JSON.stringify({ reason: 'I fell over.' }) }]));
      // Knocked over once the walk has been asked for (before it starts, it ends as fallen: a fall all the same).
      const knock = setInterval(() => {
        if (server.requests.length < 1) return;
        clearInterval(knock);
        setTimeout(() => rig.signalFirmware('SIGUSR1'), 1000);
      }, 10);
      const argv = ['run', '--goal', 'walk across the room', '--yes', '--robot', 'microduck:jsonrpc', '--port', rig.hostPath, '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'm', '--timeout', '60'];
      const r = await quackd(argv, { env: { QUACKD_HOME: home, OPENAI_API_KEY: 'test-key' }, timeoutMs: 30_000 });
      clearInterval(knock);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /^ {2}1 {2}walk 2\.00 +walk 2\.00 m: failed — (fell after \d+\.\d s|fallen: the duck is down) \(tilted \d+°\).*torque off, confirmed by the firmware$/m);
      assert.match(r.stdout, /^FAIL failure — I fell over\./m);
      const dir = join(home, 'transcripts');
      const lines = readFileSync(join(dir, readdirSync(dir)[0] ?? ''), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as TranscriptLine);
      const result = lines.find((l): l is Extract<TranscriptLine, { type: 'verb_result' }> => l.type === 'verb_result');
      assert.equal(result?.data?.['fell'], true);
      const stop = lines.find((l): l is Extract<TranscriptLine, { type: 'body_stop' }> => l.type === 'body_stop');
      assert.equal(stop?.ok, true, 'torque off at the end was not confirmed');
    } finally {
      await server.close();
      await rig.cleanup();
    }
  });
});

describe('microduck:jsonrpc falls between verbs', { skip: missingTools() }, () => {
  it('is trouble the run hears (kind fell), torque goes off, and the next walk is refused as fallen', async () => {
    const rig = await Rig.start(FALLS);
    const body = await openBody(rig);
    try {
      const heard: { kind: string; message: string }[] = [];
      const off = body.onTrouble?.((t) => heard.push(t));
      // A verb first, so that torque is on when it tips over with no verb running.
      const walked = await body.perform({ verb: 'walk', args: { metres: 0.3 } });
      assert.equal(walked.ok, true, walked.summary);
      rig.signalFirmware('SIGUSR1');
      const until = performance.now() + 5000;
      while (!heard.some((t) => t.kind === 'fell') && performance.now() < until) await sleep(20);
      off?.();
      const fell = heard.find((t) => t.kind === 'fell');
      assert.match(fell?.message ?? JSON.stringify(heard), /^fell between verbs \(tilted \d+°\); torque off$/);
      const r = await body.perform({ verb: 'walk', args: { metres: 0.3 } });
      assert.equal(r.ok, false);
      assert.match(r.summary, /fallen: the duck is down/);
      assert.equal((await seen(body)).torque, false);
    } finally {
      await body.close();
      await rig.cleanup();
    }
  });
});
