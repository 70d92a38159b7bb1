/**
 * The client over an in-process Duplex (no serial, no firmware): id matching, timeouts, late and
 * unmatched responses, refusals, malformed results and notifications, heartbeats, and what a
 * closing stream does to waiting requests.
 */
import assert from 'node:assert/strict';
import { Duplex, PassThrough } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import { BridgeClient } from '../../src/bridge/client.js';
import { BridgeError, LinkLostError, RequestTimeoutError, RpcError } from '../../src/bridge/errors.js';
import { FrameDecoder, encodeFrame } from '../../src/bridge/frame.js';
import { sleep } from './rig.js';

interface Request {
  readonly id?: number;
  readonly method: string;
}

/** A far end that records what it receives and lets the test answer by hand. */
class FarEnd {
  readonly toClient = new PassThrough();
  readonly fromClient = new PassThrough();
  readonly stream = Duplex.from({ readable: this.toClient, writable: this.fromClient });
  readonly received: Request[] = [];
  private readonly decoder = new FrameDecoder();

  constructor() {
    this.fromClient.on('data', (chunk: Buffer) => {
      for (const f of this.decoder.push(chunk)) this.received.push(JSON.parse(Buffer.from(f).toString('utf8')) as Request);
    });
  }

  send(message: unknown): void {
    this.toClient.write(encodeFrame(Buffer.from(JSON.stringify(message))));
  }

  last(method: string): Request {
    const r = this.received.filter((m) => m.method === method).at(-1);
    assert.ok(r !== undefined, `no ${method} received`);
    return r;
  }
}

const STATE = {
  seq: 1, t: 10, torque: false, pos: [0], vel: [0], gyro: [0, 0, 0], accel: [0, 0, 9.81], contacts: [true, true],
  battery_v: 8, quacks: 0, targets: 0, rx: { ok: 1, crc: 0, malformed: 0, overlong: 0, runt: 0, json: 0 }, tx_dropped: 0,
};

describe('bridge client over a Duplex', () => {
  let client: BridgeClient;
  afterEach(() => client?.close());

  it('matches responses to requests by id, in any order', async () => {
    const far = new FarEnd();
    client = new BridgeClient({ heartbeatMs: 0 });
    client.attach(far.stream);
    const a = client.quack();
    const b = client.torque(true);
    await sleep(10);
    far.send({ jsonrpc: '2.0', id: far.last('torque').id, result: { torque: true } });
    far.send({ jsonrpc: '2.0', id: far.last('quack').id, result: { quacks: 3 } });
    assert.deepEqual(await a, { quacks: 3 });
    assert.deepEqual(await b, { torque: true });
  });

  it('times out, then counts the late answer as unmatched', async () => {
    const far = new FarEnd();
    client = new BridgeClient({ heartbeatMs: 0, timeoutMs: 30 });
    client.attach(far.stream);
    await assert.rejects(client.quack(), RequestTimeoutError);
    far.send({ jsonrpc: '2.0', id: far.last('quack').id, result: { quacks: 1 } });
    far.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } });
    await sleep(10);
    assert.equal(client.counters().timeouts, 1);
    assert.equal(client.counters().unmatched, 2);
  });

  it('turns firmware errors into RpcError and bad results into BridgeError', async () => {
    const far = new FarEnd();
    client = new BridgeClient({ heartbeatMs: 0 });
    client.attach(far.stream);
    const refused = client.setTargets([1]);
    await sleep(5);
    far.send({ jsonrpc: '2.0', id: far.last('set_targets').id, error: { code: -32002, message: 'torque is off' } });
    await assert.rejects(refused, (e: unknown) => e instanceof RpcError && e.code === -32002 && e.message === 'firmware refused set_targets: torque is off (code -32002)');
    const odd = client.quack();
    await sleep(5);
    far.send({ jsonrpc: '2.0', id: far.last('quack').id, result: { quacks: 'many' } });
    await assert.rejects(odd, (e: unknown) => e instanceof BridgeError && !(e instanceof RpcError));
  });

  it('refuses a request too big for one frame at once, leaving no timer to fire later', async () => {
    const far = new FarEnd();
    client = new BridgeClient({ heartbeatMs: 0, timeoutMs: 30 });
    client.attach(far.stream);
    await assert.rejects(client.setTargets(new Array<number>(300).fill(0.123456789)), RangeError);
    await sleep(60);
    assert.equal(client.counters().timeouts, 0, 'a request that was never sent timed out');
    assert.equal(far.received.length, 0);
  });

  it('delivers valid notifications and counts malformed ones', async () => {
    const far = new FarEnd();
    client = new BridgeClient({ heartbeatMs: 0 });
    client.attach(far.stream);
    const states: unknown[] = [];
    client.on('state', (s) => states.push(s));
    far.send({ jsonrpc: '2.0', method: 'state', params: STATE });
    far.send({ jsonrpc: '2.0', method: 'state', params: { ...STATE, torque: 'yes' } });
    far.send({ jsonrpc: '2.0', method: 'from_the_future', params: {} });
    far.toClient.write(encodeFrame(Buffer.from('not json')));
    await sleep(10);
    assert.equal(states.length, 1);
    assert.equal(client.counters().json, 2);
    assert.equal(client.lastState()?.state.battery_v, 8);
  });

  it('sends heartbeats as notifications on its own timer', async () => {
    const far = new FarEnd();
    client = new BridgeClient({ heartbeatMs: 20 });
    client.attach(far.stream);
    await sleep(110);
    const beats = far.received.filter((m) => m.method === 'heartbeat');
    assert.ok(beats.length >= 3, `${beats.length} heartbeats`);
    assert.ok(beats.every((b) => b.id === undefined));
    client.setHeartbeat(0);
    const n = far.received.length;
    await sleep(60);
    assert.equal(far.received.length, n);
  });

  it('fails waiting requests when the stream closes, and fails fast after', async () => {
    const far = new FarEnd();
    client = new BridgeClient({ heartbeatMs: 0 });
    client.attach(far.stream);
    const waiting = client.getState();
    far.stream.destroy();
    await assert.rejects(waiting, LinkLostError);
    assert.equal(client.attached, false);
    await assert.rejects(client.hello(), LinkLostError);
  });
});
