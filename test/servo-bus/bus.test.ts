/**
 * ServoBus transactions against the servo simulator over a PassThrough pair: what a body relies
 * on. Answers come back decoded; a silent servo is named with the instruction and the time it was
 * given; a garbled or cut reply is retried and, when it stays garbled, said to be; error bits
 * come back as words; a Dynamixel refusal fails the call; a lost link fails what waits.
 */
import assert from 'node:assert/strict';
import { Duplex, PassThrough } from 'node:stream';
import { afterEach, describe, it } from 'node:test';
import { ServoBus } from '../../src/servo-bus/bus.js';
import { BusLostError, ServoGarbledError, ServoRefusedError, ServoTimeoutError } from '../../src/servo-bus/errors.js';
import { decodeRegister, modelByName } from '../../src/servo-bus/models.js';
import type { ProtocolName } from '../../src/servo-bus/packet.js';
import { protocolNamed } from '../../src/servo-bus/protocol.js';
import { ServoSim, type SimServoSpec } from '../helpers/servo-sim.js';

interface Wired {
  readonly bus: ServoBus;
  readonly sim: ServoSim;
  /** Everything the bus wrote, as the wire carried it. */
  readonly sent: Uint8Array[];
}

let open: Wired[] = [];
afterEach(() => {
  for (const w of open) {
    w.bus.close();
    w.sim.close();
  }
  open = [];
});

function wire(protocol: ProtocolName, servos: readonly SimServoSpec[], options: { timeoutMs?: number; retries?: number } = {}): Wired {
  const toSim = new PassThrough();
  const toBus = new PassThrough();
  const sent: Uint8Array[] = [];
  toSim.on('data', (c: Buffer) => sent.push(Uint8Array.from(c)));
  const sim = new ServoSim({ protocol, servos });
  sim.attach(toSim, (bytes) => toBus.write(bytes));
  const bus = new ServoBus({ protocol: protocolNamed(protocol), timeoutMs: options.timeoutMs ?? 20, retries: options.retries ?? 1 });
  bus.attach(Duplex.from({ readable: toBus, writable: toSim }));
  const w = { bus, sim, sent };
  open.push(w);
  return w;
}

const STS = (id: number): SimServoSpec => ({ id, model: 'STS3215' });
const XL = (id: number): SimServoSpec => ({ id, model: 'XL330-M288' });

describe('ServoBus, Feetech', () => {
  it('pings, reads and writes one servo', async () => {
    const { bus, sim } = wire('feetech', [STS(1), STS(2)]);
    const pong = await bus.ping(2);
    assert.deepEqual({ id: pong.id, alarms: pong.alarms, data: [...pong.data] }, { id: 2, alarms: [], data: [] });
    const model = await bus.read(1, 3, 2);
    assert.equal(model.data[0]! | (model.data[1]! << 8), 777);
    await bus.write(1, 40, [1]);
    assert.equal(sim.table(1)[40], 1, 'torque enable written');
  });

  it('reads every joint in one sync read and writes every target in one sync write', async () => {
    const { bus, sim } = wire('feetech', [STS(1), STS(2), STS(3)]);
    const sts = modelByName('STS3215')!;
    const pos = sts.registers.presentPosition;
    const replies = await bus.syncRead([3, 1, 2], pos.address, 4);
    assert.deepEqual(
      replies.map((r) => [r.id, decodeRegister(pos, r.data)]),
      [
        [3, 2048],
        [1, 2048],
        [2, 2048],
      ],
    );
    await bus.syncWrite(42, { 1: [0x00, 0x04], 2: [0x00, 0x0c] });
    await bus.ping(1); // the bus is in order: the write went before this
    assert.deepEqual([sim.table(1)[42], sim.table(1)[43], sim.table(2)[43]], [0x00, 0x04, 0x0c]);
    assert.deepEqual(
      sim.received.map((r) => r.instruction),
      ['sync read', 'sync write', 'ping'],
    );
  });

  it('names a servo that does not answer, with the instruction and the time it had', async () => {
    const { bus, sim } = wire('feetech', [STS(7)], { timeoutMs: 10, retries: 0 });
    sim.silence(7);
    await assert.rejects(bus.ping(7), (err: unknown) => err instanceof ServoTimeoutError && err.message === 'servo 7 did not answer ping within 10 ms');
    assert.equal(bus.counters().timeouts, 1);
  });

  it('a sync read names only the servos that stayed silent, and keeps the answers that came', async () => {
    const { bus, sim } = wire('feetech', [STS(1), STS(2), STS(3)], { timeoutMs: 10, retries: 0 });
    sim.silence(2);
    const err = await bus.syncRead([1, 2, 3], 56, 2).catch((e: unknown) => e);
    assert.ok(err instanceof ServoTimeoutError);
    assert.equal(err.message, 'servo 2 did not answer sync read within 10 ms');
    assert.deepEqual(err.answered, [1, 3]);
  });

  it('an answer that comes after its sync read gave up is told as late and answers nothing after it', async () => {
    // A loaded host reads the port late: the sync read's answers land while the next question waits.
    const { bus, sim } = wire('feetech', [STS(1), STS(2)], { timeoutMs: 5, retries: 0 });
    const late: [number, boolean][] = [];
    bus.on('late', (id, ms, taken) => {
      assert.ok(ms > 0);
      late.push([id, taken]);
    });
    sim.table(1)[40] = 1; // torque on
    sim.lag(40, 20);
    await assert.rejects(bus.syncRead([1, 2], 56, 4), ServoTimeoutError);
    const torque = await bus.read(1, 40, 1, { timeoutMs: 200 });
    assert.deepEqual([...torque.data], [1], 'the torque register, not a late position');
    assert.deepEqual(late, [
      [1, false],
      [2, false],
    ]);
    assert.equal(bus.counters().late, 2);
  });

  it('a sync read\'s retry takes the late answers to its first try, and its own answer answers nothing after it', async () => {
    const { bus, sim } = wire('feetech', [STS(1)], { timeoutMs: 10, retries: 1 });
    sim.table(1)[40] = 1;
    sim.lag(16, 15); // each try answered 16 ms after it was asked: the first during the retry, the retry's after it
    const [reply] = await bus.syncRead([1], 56, 4);
    assert.equal(reply?.data.length, 4);
    const torque = await bus.read(1, 40, 1, { timeoutMs: 200 });
    assert.deepEqual([...torque.data], [1], 'the torque register, not the retry\'s late position');
  });

  it('retries a dropped, garbled or cut reply and gets the answer', async () => {
    const { bus, sim } = wire('feetech', [STS(4)], { retries: 1 });
    for (const spoil of [() => sim.drop(4), () => sim.garble(4), () => sim.cut(4)]) {
      spoil();
      const r = await bus.read(4, 56, 2);
      assert.equal(decodeRegister(modelByName('STS3215')!.registers.presentPosition, r.data), 2048);
    }
    const c = bus.counters();
    assert.equal(c.retries, 3);
    assert.ok(c.checksum >= 1, 'the garbled reply was counted');
  });

  it('a reply that stays garbled is said to be garbled, not silent', async () => {
    const { bus, sim } = wire('feetech', [STS(5)], { retries: 2 });
    sim.garble(5, 3);
    await assert.rejects(bus.ping(5), (err: unknown) => err instanceof ServoGarbledError && /^servo 5' reply to ping was garbled/.test(err.message));
  });

  it('error bits come back as words with the data', async () => {
    const { bus, sim } = wire('feetech', [STS(6)]);
    sim.raise(6, 0x24);
    const r = await bus.read(6, 63, 1);
    assert.deepEqual(r.alarms, ['overheat', 'overload']);
    assert.equal(r.data[0], 31);
  });

  it('ignores its own instruction echoed back by a one-wire adapter', async () => {
    const toSim = new PassThrough();
    const toBus = new PassThrough();
    const sim = new ServoSim({ protocol: 'feetech', servos: [STS(1)] });
    // every byte the bus writes comes back to it first, as on an adapter without echo cancelling
    sim.attach(toSim, (bytes) => toBus.write(bytes));
    toSim.on('data', (c: Buffer) => toBus.write(c));
    const bus = new ServoBus({ protocol: protocolNamed('feetech'), timeoutMs: 20 });
    bus.attach(Duplex.from({ readable: toBus, writable: toSim }));
    open.push({ bus, sim, sent: [] });
    const r = await bus.read(1, 56, 2);
    assert.deepEqual(r.alarms, [], 'the echo (instruction 0x02) was not taken for an "angle sensor" alarm');
    assert.equal(decodeRegister(modelByName('STS3215')!.registers.presentPosition, r.data), 2048);
  });

  it('a lost link fails the transaction waiting, and the next one at once', async () => {
    const { bus, sim } = wire('feetech', [STS(1)], { timeoutMs: 1000 });
    sim.silence(1);
    const waiting = bus.ping(1);
    await new Promise((r) => setTimeout(r, 5)); // the ping is on the wire, waiting
    bus.detach(new Error('unplugged'));
    await assert.rejects(waiting, (err: unknown) => err instanceof BusLostError && err.message === 'unplugged');
    await assert.rejects(bus.ping(1), BusLostError);
  });
});

describe('the simulator as a rig', () => {
  it('paces its replies at the baud rate: a sync read takes at least its wire time', async () => {
    const toSim = new PassThrough();
    const toBus = new PassThrough();
    const baud = 115_200;
    const ids = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
    const sim = new ServoSim({ protocol: 'feetech', baud, servos: ids.map(STS) });
    sim.attach(toSim, (bytes) => toBus.write(bytes));
    const p = protocolNamed('feetech');
    const bus = new ServoBus({ protocol: p, baud, timeoutMs: 100 });
    bus.attach(Duplex.from({ readable: toBus, writable: toSim }));
    open.push({ bus, sim, sent: [] });
    const wire = ((p.syncRead(ids, 56, 4).length + ids.length * p.statusBytes(4)) * 10 * 1000) / baud;
    const start = performance.now();
    await bus.syncRead(ids, 56, 4);
    assert.ok(performance.now() - start >= wire * 0.99, `${(performance.now() - start).toFixed(2)} ms for ${wire.toFixed(2)} ms of wire`);
  });

  it('tells a listener what was written, where a twin hooks in', async () => {
    const toSim = new PassThrough();
    const toBus = new PassThrough();
    const written: [number, number, number[]][] = [];
    const sim = new ServoSim({ protocol: 'feetech', servos: [STS(1), STS(2)], onWrite: (id, address, data) => written.push([id, address, [...data]]) });
    sim.attach(toSim, (bytes) => toBus.write(bytes));
    const bus = new ServoBus({ protocol: protocolNamed('feetech'), timeoutMs: 20 });
    bus.attach(Duplex.from({ readable: toBus, writable: toSim }));
    open.push({ bus, sim, sent: [] });
    await bus.write(1, 40, [1]);
    await bus.syncWrite(42, { 1: [0x10, 0x08], 2: [0x20, 0x08] });
    await bus.ping(1);
    assert.deepEqual(written, [
      [1, 40, [1]],
      [1, 42, [0x10, 0x08]],
      [2, 42, [0x20, 0x08]],
    ]);
  });
});

describe('ServoBus, Dynamixel', () => {
  it("pings with the model number and firmware in the reply", async () => {
    const { bus } = wire('dynamixel', [XL(3)]);
    const r = await bus.ping(3);
    assert.deepEqual([...r.data], [1200 & 0xff, 1200 >> 8, 52]);
  });

  it('sync read and sync write over four-byte registers', async () => {
    const { bus, sim } = wire('dynamixel', [XL(1), XL(2)]);
    const xl = modelByName('XL330-M288')!.registers;
    const replies = await bus.syncRead([1, 2], xl.presentVelocity.address, 8);
    assert.deepEqual(
      replies.map((r) => decodeRegister(xl.presentPosition, r.data.subarray(4))),
      [2048, 2048],
    );
    await bus.syncWrite(xl.goalPosition.address, new Map([[2, [0xff, 0xff, 0xff, 0xff]]]));
    await bus.ping(2);
    assert.equal(decodeRegister(xl.goalPosition, sim.table(2).subarray(116, 120)), -1);
  });

  it('the alert bit is the hardware error alarm; an instruction error is a refusal naming the servo', async () => {
    const { bus, sim } = wire('dynamixel', [XL(9)]);
    sim.raise(9, 0x80);
    assert.deepEqual((await bus.read(9, 70, 1)).alarms, ['hardware error']);
    sim.raise(9, 0x04);
    await assert.rejects(bus.write(9, 116, [0, 0, 0, 0]), (err: unknown) => err instanceof ServoRefusedError && err.message === 'servo 9 refused write: data range error');
  });
});
