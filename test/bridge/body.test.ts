/**
 * microduck:jsonrpc end to end: loaded through the body catalog, talking to the host firmware
 * over a pty. quack and torque reach the firmware without a single joint target; search_scan is
 * refused (no camera on the bridge); a lost link ends the run with a BodyError, a motion verb too.
 * walk/turn/kick in the control loop: plant-walk.test.ts.
 */
import assert from 'node:assert/strict';
import { Duplex, PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { Body, Intent } from '../../src/bodies/body.js';
import { BodyError } from '../../src/bodies/body.js';
import { findBody } from '../../src/bodies/index.js';
import { JsonRpcBody } from '../../src/bodies/microduck/jsonrpc/jsonrpc-body.js';
import { BridgeClient } from '../../src/bridge/client.js';
import { FrameDecoder } from '../../src/bridge/frame.js';
import type { Hello } from '../../src/bridge/protocol.js';
import { bodyContract, unadmitted } from '../contract/body.contract.js';
import { Rig, missingTools, patientBody, sleep, waitFor } from './rig.js';

async function openBody(settings: Record<string, unknown>): Promise<Body> {
  const entry = findBody('microduck:jsonrpc');
  assert.ok(entry !== undefined, 'microduck:jsonrpc is not in the body catalog');
  return entry.load({ seed: 1, settings });
}

/** What the firmware itself reports (its counters travel in every state), once a fresh state arrived. */
async function firmwareState(body: Body): Promise<{ targets: number; quacks: number; torque: boolean }> {
  await sleep(100); // two state periods at 50 Hz: the observation is newer than the last command
  const data = (await body.observe()).data;
  return { targets: Number(data['targets']), quacks: Number(data['quacks']), torque: data['torque'] === true };
}

describe('microduck:jsonrpc body', { skip: missingTools() }, () => {
  let rig: Rig;
  let body: Body;

  before(async () => {
    // A long watchdog: torque must stay on between requests even if a loaded machine stalls the
    // pty for a moment (the 200 ms watchdog has its own tests).
    rig = await Rig.start(['--watchdog-ms', '5000']);
    body = await openBody({ port: rig.hostPath });
  });

  after(async () => {
    await body?.close();
    await rig?.cleanup();
  });

  it('observes the streamed state, with torque off after open', async () => {
    const o = await body.observe();
    assert.match(o.summary, /torque off/);
    assert.match(o.summary, /battery \d\.\d\d V/);
    assert.equal(o.data['torque'], false);
    assert.equal(typeof body.metrics()['battery_v'], 'number');
  });

  it('quacks', async () => {
    const r = await body.perform({ verb: 'quack', args: {} });
    assert.deepEqual(r, { ok: true, summary: 'quacked', data: { quacks: 1 } });
    await waitFor('the firmware to quack', () => rig.firmwareLog().includes('quack!'), 2000);
  });

  it('refuses search_scan (no camera) without sending a target, and never invents a sighting', async () => {
    const intent: Intent = { verb: 'search_scan', args: {} };
    const r = await body.perform(intent);
    assert.deepEqual(r, { ok: false, summary: 'search_scan needs a camera: setting (the bridge carries no camera) on microduck:jsonrpc' });
    const seen = await firmwareState(body);
    assert.equal(seen.targets, 0, 'the firmware received targets');
    assert.equal(seen.quacks, 1);
  });

  it('switches torque on and off; stop() turns it off', async () => {
    assert.equal((await body.perform({ verb: 'torque', args: { on: true } })).summary, 'torque on: holding the current pose');
    assert.equal((await firmwareState(body)).torque, true);
    await body.stop();
    await body.stop();
    assert.equal((await firmwareState(body)).torque, false);
    assert.equal((await body.perform(unadmitted('torque', { on: 'yes' }))).ok, false);
  });

  it('ends with a BodyError when the link is lost', async () => {
    await rig.unplug();
    await assert.rejects(body.perform({ verb: 'quack', args: {} }), (err: unknown) => {
      assert.ok(err instanceof BodyError);
      assert.match(err.message, /serial link to .* lost; the firmware's watchdog cuts torque within \d+ ms, and quackd sends torque off once the link is back/);
      return true;
    });
    await assert.rejects(body.observe(), BodyError);
    await assert.rejects(body.perform({ verb: 'walk', args: { metres: 1 } }), BodyError);
  });
});

describe('microduck:jsonrpc in the body catalog', () => {
  // What `quackd bodies` shows and what a .duck for this body may name: written out by hand.
  it('lists quack, torque, walk, turn and kick, and search_scan as refused until the bridge carries a camera', () => {
    const entry = findBody('microduck:jsonrpc');
    assert.ok(entry !== undefined, 'microduck:jsonrpc is not in the body catalog');
    assert.deepEqual(entry.verbs, ['quack', 'torque', 'walk', 'turn', 'kick', 'search_scan']);
    assert.deepEqual(entry.pending, { search_scan: 'needs a camera: setting (the bridge carries no camera)' });
    assert.equal(entry.policies, true);
    assert.deepEqual(entry.metrics, ['quacks', 'battery_v', 'tilt_deg', 'torque', 'link_crc_errors', 'link_dropped_frames']);
  });
});

describe('microduck:jsonrpc settings', () => {
  it('needs a port', async () => {
    await assert.rejects(openBody({}), (err: unknown) => err instanceof BodyError && /needs a serial port: pass --port/.test(err.message));
  });

  it('takes the baud rate as a number or its text, and refuses nonsense', async () => {
    await assert.rejects(openBody({ port: '/nope', baud: 'fast' }), (err: unknown) => err instanceof BodyError && /--baud must be a positive whole number/.test(err.message));
    await assert.rejects(openBody({ port: '/nope', baud: '115200' }), (err: unknown) => err instanceof BodyError && /serial port \/nope not found/.test(err.message));
  });

  it('says which port is missing', async () => {
    await assert.rejects(openBody({ port: '/dev/serial/by-id/no-such-duck' }), (err: unknown) => err instanceof BodyError && /serial port \/dev\/serial\/by-id\/no-such-duck not found/.test(err.message));
  });
});

describe('microduck:jsonrpc keeps the body contract', { skip: missingTools() }, () => {
  let rig: Rig | undefined;
  // No state stream: the contract compares frames around observe(), and a live stream would
  // change them by itself (time passes) without anything moving.
  before(async () => {
    rig = await Rig.start(['--state-hz', '0']);
  });
  after(async () => {
    await rig?.cleanup();
  });
  bodyContract('microduck:jsonrpc', () => openBody({ port: rig?.hostPath ?? '' }), {
    safeVerb: { verb: 'quack', args: {} },
    measures: ['quacks', 'battery_v', 'tilt_deg', 'torque', 'link_crc_errors', 'link_dropped_frames'],
    // Time, battery and link counters move by themselves; joints, torque, targets and quacks must not.
    actuated: (s) => ({ pos: s['pos'], torque: s['torque'], targets: s['targets'], quacks: s['quacks'] }),
  });
});

describe('microduck:jsonrpc right after a verb', { skip: missingTools() }, () => {
  // No state stream, so nothing but the body itself can bring its cached state up to date.
  it('observe, metrics and the frame include what the verb just did', async () => {
    const rig = await Rig.start(['--state-hz', '0', '--watchdog-ms', '5000']);
    let body: Body | undefined;
    try {
      // Built by hand for a patient client: the state fetch after a verb is best effort, and a
      // loaded machine must not make it time out here.
      body = await patientBody(rig);
      assert.equal((await body.observe()).data['quacks'], 0);
      await body.perform({ verb: 'quack', args: {} });
      assert.equal(body.metrics()['quacks'], 1, 'metrics, as a success_when check reads them');
      assert.equal(body.frame().state['quacks'], 1, 'the transcript frame');
      assert.match((await body.observe()).summary, /1 quack since the firmware started/);
      assert.equal(body.metrics()['firmware_quacks'], 1);
      await body.perform({ verb: 'torque', args: { on: true } });
      assert.equal(body.metrics()['torque'], 1);
      assert.equal((await body.observe()).data['torque'], true);
      assert.equal(body.metrics()['targets_applied'], 0, 'a verb sent joint targets');
    } finally {
      await body?.close();
      await rig.cleanup();
    }
  });
});

describe('microduck:jsonrpc counts only its own quacks', { skip: missingTools() }, () => {
  // A success check reads `quacks`: a firmware that quacked for an earlier run must not count.
  it('a body opened on a firmware that already quacked starts from 0', async () => {
    const rig = await Rig.start(['--watchdog-ms', '5000']);
    try {
      const first = await openBody({ port: rig.hostPath });
      await first.perform({ verb: 'quack', args: {} });
      await first.close();
      const second = await openBody({ port: rig.hostPath });
      try {
        assert.equal(second.metrics()['quacks'], 0);
        await second.perform({ verb: 'quack', args: {} });
        assert.equal(second.metrics()['quacks'], 1);
        assert.equal(second.metrics()['firmware_quacks'], 2);
      } finally {
        await second.close();
      }
    } finally {
      await rig.cleanup();
    }
  });
});

describe('microduck:jsonrpc stop()', () => {
  const HELLO: Hello = {
    protocol: 1, firmware: 'test', board: 'test', boot: 1, joints: ['j'], lower: [-1], upper: [1], state_hz: 0, watchdog_ms: 200, max_payload: 1024,
  };
  /** A far end that records the methods it receives and never answers. */
  function farEnd(): { stream: Duplex; methods: string[] } {
    const fromClient = new PassThrough();
    const methods: string[] = [];
    const decoder = new FrameDecoder();
    fromClient.on('data', (chunk: Buffer) => {
      for (const f of decoder.push(chunk)) methods.push((JSON.parse(Buffer.from(f).toString('utf8')) as { method: string }).method);
    });
    return { stream: Duplex.from({ readable: new PassThrough(), writable: fromClient }), methods };
  }

  it('on a dead link rejects with the reason: a lost link is never a clean stop', async () => {
    const client = new BridgeClient({ heartbeatMs: 0, timeoutMs: 20 });
    const end = farEnd();
    client.attach(end.stream);
    const body = new JsonRpcBody(client, HELLO, { label: 'test', close: () => Promise.resolve() });
    const troubles: string[] = [];
    const off = body.onTrouble((t) => troubles.push(`${t.kind}: ${t.message}`));
    try {
      end.stream.destroy();
      await sleep(5);
      await assert.rejects(body.stop(), (err: unknown) => err instanceof BodyError && /^serial link to test is down: torque off not sent/.test(err.message));
      assert.deepEqual(troubles, ["link-lost: serial link to test lost; the firmware's watchdog cuts torque within 200 ms, and quackd sends torque off once the link is back"]);
    } finally {
      off();
      await body.close();
    }
  });

  it('still switches torque off when the link came back after a loss', async () => {
    const client = new BridgeClient({ heartbeatMs: 0, timeoutMs: 20 });
    const first = farEnd();
    client.attach(first.stream);
    const body = new JsonRpcBody(client, HELLO, { label: 'test', close: () => Promise.resolve() });
    try {
      first.stream.destroy();
      await sleep(5);
      assert.equal(client.attached, false);
      const second = farEnd();
      client.attach(second.stream); // the serial link reopened the port
      // This far end never answers: the torque off went out, but stop() cannot say it took.
      await assert.rejects(body.stop(), BodyError);
      await sleep(5);
      assert.deepEqual(second.methods, ['torque']);
      await assert.rejects(body.observe(), BodyError); // the run still ends: the link was lost once
    } finally {
      await body.close();
    }
  });
});
