/**
 * The Node client against the real host firmware over a pty (rig.ts): hello, set/get, the
 * streamed state, torque, clamping, refusals, garbage on the line and the watchdog.
 */
import assert from 'node:assert/strict';
import { closeSync, openSync, writeSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { BridgeClient } from '../../src/bridge/client.js';
import { RpcError } from '../../src/bridge/errors.js';
import { FRAME_MAX_PAYLOAD, encodeFrame } from '../../src/bridge/frame.js';
import { RPC_ERROR, encodeMessage, type BridgeState, type Fault } from '../../src/bridge/protocol.js';
import { SerialLink } from '../../src/bridge/serial.js';
import { Rig, missingTools, sleep } from './rig.js';

const JOINTS = [
  'left_hip_yaw', 'left_hip_roll', 'left_hip_pitch', 'left_knee', 'left_ankle', 'neck_pitch', 'head_pitch',
  'head_yaw', 'head_roll', 'right_hip_yaw', 'right_hip_roll', 'right_hip_pitch', 'right_knee', 'right_ankle',
];
const POSE = [0.1, -0.1, 0.2, -0.2, 0.3, 0.1, 0.1, 0.5, 0.1, 0, 0.1, -0.2, 0.2, -0.3];

/** Wait until every joint has stopped (the servos are first-order, so this takes a few tau). */
async function settled(client: BridgeClient): Promise<void> {
  let still = 0;
  for (let i = 0; i < 150; i++) {
    await sleep(20);
    const s = await client.getState();
    still = s.vel.every((v) => Math.abs(v) < 1e-3) ? still + 1 : 0;
    if (still >= 5) return;
  }
  throw new Error('the joints never settled');
}

async function rpcCode(p: Promise<unknown>): Promise<number> {
  try {
    await p;
  } catch (err) {
    if (err instanceof RpcError) return err.code;
    throw err;
  }
  throw new Error('expected the firmware to refuse');
}

describe('bridge client ↔ host firmware over a pty', { skip: missingTools() }, () => {
  let rig: Rig;
  let client: BridgeClient;
  let link: SerialLink | undefined;

  before(async () => {
    // These tests keep torque on across many requests: a long watchdog and long timeouts keep a
    // loaded machine (a starved firmware) from failing them. The 200 ms default has its
    // own suite below, and make check pins it to the millisecond.
    rig = await Rig.start(['--watchdog-ms', '5000']);
    client = new BridgeClient({ timeoutMs: 3000 });
    link = await SerialLink.open(client, { path: rig.hostPath });
  });

  after(async () => {
    client?.close();
    await link?.close();
    await rig?.cleanup();
  });

  it('hello announces protocol 1, the 14 Microduck joints and their limits', async () => {
    const hello = await client.hello();
    assert.equal(hello.protocol, 1);
    assert.deepEqual(hello.joints, JOINTS);
    hello.joints.forEach((_, i) => assert.ok((hello.lower[i] ?? 0) < (hello.upper[i] ?? 0)));
    // The step limit the host's safety stage must match: 10 rad/s × a 20 ms tick by default.
    assert.equal(hello.tick_ms, 20);
    assert.deepEqual(hello.max_vel, Array.from({ length: 14 }, () => 10));
  });

  it('streams state at the configured rate (50 Hz)', async () => {
    const stamps: number[] = [];
    const count = (s: BridgeState): void => void stamps.push(s.t);
    client.on('state', count);
    await sleep(1000);
    client.off('state', count);
    assert.ok(stamps.length >= 10 && stamps.length <= 70, `${stamps.length} states in 1 s`);
    // On the firmware's clock, so a stall of this process or the pty does not blur it.
    const gaps = stamps.slice(1).map((t, i) => t - (stamps[i] ?? 0)).sort((a, b) => a - b);
    const median = gaps[Math.floor(gaps.length / 2)] ?? 0;
    assert.ok(median >= 19 && median <= 21, `median ${median} ms between states`);
    const last = client.lastState();
    assert.ok(last !== undefined && last.state.pos.length === 14 && last.state.accel[2] > 9);
  });

  it('refuses targets while torque is off and moves nothing', async () => {
    await client.torque(false);
    const before = await client.getState();
    assert.equal(await rpcCode(client.setTargets(POSE)), RPC_ERROR.torqueOff);
    await sleep(100);
    const after = await client.getState();
    assert.equal(after.targets, before.targets);
    assert.deepEqual(after.pos, before.pos);
  });

  it('set_targets drives the joints to the targets; get_state reports them', async () => {
    assert.deepEqual(await client.torque(true), { torque: true });
    // Far targets are reached a step a tick (the firmware's step limit says which it cut short).
    const set = await client.setTargets(POSE);
    assert.deepEqual(set.clamped, []);
    assert.ok(Array.isArray(set.limited));
    await settled(client);
    const s = await client.getState();
    assert.equal(s.torque, true);
    s.pos.forEach((p, i) => assert.ok(Math.abs(p - (POSE[i] ?? 0)) < 0.01, `joint ${i} at ${p}`));
  });

  it('clamps out-of-limit targets to the limits hello announced', async () => {
    const hello = await client.hello();
    const wild = POSE.map((p, i) => (i === 3 ? 9 : i === 7 ? -9 : p));
    assert.deepEqual((await client.setTargets(wild)).clamped, [3, 7]);
    await settled(client);
    const s = await client.getState();
    assert.ok(Math.abs((s.pos[3] ?? 0) - (hello.upper[3] ?? 0)) < 0.01, `knee at ${s.pos[3]}`);
    assert.ok(Math.abs((s.pos[7] ?? 0) - (hello.lower[7] ?? 0)) < 0.01, `head_yaw at ${s.pos[7]}`);
    s.pos.forEach((p, i) => assert.ok(p >= (hello.lower[i] ?? 0) - 1e-4 && p <= (hello.upper[i] ?? 0) + 1e-4));
  });

  it('refuses a strict out-of-limit call whole, and bad params', async () => {
    const before = (await client.getState()).targets;
    assert.equal(await rpcCode(client.setTargets(POSE.map((p, i) => (i === 0 ? 2 : p)), true)), RPC_ERROR.outOfLimit);
    assert.equal(await rpcCode(client.request('set_targets', { pos: [1, 2, 3] })), RPC_ERROR.badParams);
    assert.equal((await client.getState()).targets, before);
  });

  it('applies a set_targets frame of exactly the length limit', async () => {
    await client.torque(true);
    const before = (await client.getState()).targets;
    const json = JSON.stringify({ jsonrpc: '2.0', method: 'set_targets', params: { pos: POSE } });
    const payload = Buffer.from(`${json.slice(0, -1)}${' '.repeat(FRAME_MAX_PAYLOAD - json.length)}}`);
    assert.equal(payload.length, FRAME_MAX_PAYLOAD);
    const fd = openSync(rig.hostPath, 'r+');
    try {
      writeSync(fd, encodeFrame(payload));
    } finally {
      closeSync(fd);
    }
    const after = await client.getState(); // sent after the frame above, so answered after it
    assert.equal(after.targets, before + 1, JSON.stringify(after.rx));
  });

  it('counts garbage and a corrupted set_targets frame on the line, and never applies them', async () => {
    await client.setTargets(POSE);
    await settled(client);
    const before = await client.getState();
    const fd = openSync(rig.hostPath, 'r+');
    try {
      const noise = Buffer.from(Array.from({ length: 400 }, (_, i) => (i * 97 + 13) % 256));
      writeSync(fd, noise);
      writeSync(fd, Buffer.from([0]));
      const frame = encodeFrame(encodeMessage('set_targets', { pos: POSE.map(() => 0.4) }, 999));
      frame[20] = (frame[20] ?? 0) ^ 0x04; // one flipped bit: the CRC must catch it
      writeSync(fd, frame);
      writeSync(fd, Buffer.alloc(3000, 0x41)); // overlong: no delimiter for 3000 bytes
      writeSync(fd, Buffer.from([0]));
    } finally {
      closeSync(fd);
    }
    await sleep(300);
    const after = await client.getState();
    const dropped = (s: typeof after): number => s.rx.crc + s.rx.malformed + s.rx.runt + s.rx.overlong;
    assert.ok(dropped(after) >= dropped(before) + 2, JSON.stringify(after.rx));
    assert.ok(after.rx.overlong >= before.rx.overlong + 1);
    assert.ok(after.rx.crc >= before.rx.crc + 1);
    assert.equal(after.targets, before.targets, 'a garbled frame applied targets');
    after.pos.forEach((p, i) => assert.ok(Math.abs(p - (before.pos[i] ?? 0)) < 0.005, `joint ${i} moved`));
    assert.deepEqual((await client.hello()).protocol, 1); // and the link still works
  });
});

describe('the firmware watchdog over a pty', { skip: missingTools() }, () => {
  it('cuts torque and sends a fault when heartbeats stop for 200 ms', async () => {
    const rig = await Rig.start();
    const client = new BridgeClient({ timeoutMs: 3000 });
    let link: SerialLink | undefined;
    try {
      link = await SerialLink.open(client, { path: rig.hostPath });
      assert.equal((await client.hello()).watchdog_ms, 200);
      const fault = new Promise<Fault>((resolve) => client.once('fault', resolve));
      await client.torque(true);
      // A heartbeat stamped by the firmware's clock, while the timer still sends them: the last
      // one the firmware sees is this one or later, so the fault comes 200 ms or more after it
      // (the firmware trips in the millisecond the 200 ms are up, not at the first poll after).
      const last = await client.request('heartbeat', {});
      client.setHeartbeat(0);
      const f = await Promise.race([fault, sleep(3000).then(() => undefined)]);
      assert.ok(f !== undefined, 'no fault within 3 s');
      assert.equal(f.code, 'watchdog');
      assert.equal(f.torque, false);
      const after = f.t - last.t;
      assert.ok(after >= 200 && after < 1000, `fired ${after} ms after the heartbeat at t=${last.t}`);
      assert.equal((await client.getState()).torque, false);
      assert.equal(await rpcCode(client.setTargets(POSE)), RPC_ERROR.torqueOff);
    } finally {
      client.close();
      await link?.close();
      await rig.cleanup();
    }
  });
});

describe('bridge client under line noise from the firmware', { skip: missingTools() }, () => {
  it('keeps working and counts what it dropped', async () => {
    const rig = await Rig.start(['--noise-ms', '5']);
    const client = new BridgeClient();
    let link: SerialLink | undefined;
    try {
      link = await SerialLink.open(client, { path: rig.hostPath });
      let states = 0;
      client.on('state', () => void states++);
      for (let i = 0; i < 20; i++) assert.equal((await client.ping(3000)) > 0, true); // patient: a loaded machine stalls the pty
      await sleep(300);
      const c = client.counters();
      assert.ok(c.crc + c.malformed + c.runt + c.json > 10, JSON.stringify(c));
      assert.ok(states > 5, `${states} states`);
    } finally {
      client.close();
      await link?.close();
      await rig.cleanup();
    }
  });
});
