/**
 * A ServoBus on both of quackd's serial edges, over a real pty with the servo simulator on
 * the far end: serialport's link (the main thread: `bus scan`) and the plain-tty link the control
 * worker opens, which reads only when polled (the bus polls it while a transaction waits). A pty
 * that vanishes fails the transaction waiting with the link's own words, and the worker's link
 * reattaches the bus when the device comes back.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { SerialLink } from '../../src/bridge/serial.js';
import { TtyLink } from '../../src/bridge/tty.js';
import { ServoBus } from '../../src/servo-bus/bus.js';
import { BusLostError } from '../../src/servo-bus/errors.js';
import { decodeRegister, modelByName } from '../../src/servo-bus/models.js';
import { protocolNamed } from '../../src/servo-bus/protocol.js';
import { HeldPty } from '../helpers/held-pty.js';
import { ServoSim } from '../helpers/servo-sim.js';

const IDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
const STS = modelByName('STS3215')!.registers;

describe('a servo bus on the serial edges', () => {
  let pty: HeldPty;
  let sim: ServoSim;
  before(async () => {
    pty = await new HeldPty('quackd-servo-links-').open();
    sim = ServoSim.open(pty.far, { protocol: 'feetech', servos: IDS.map((id) => ({ id, model: 'STS3215' })) });
  });
  after(async () => {
    sim?.close();
    await pty?.close();
  });

  for (const edge of ['serialport (main thread)', 'tty (control worker)'] as const) {
    it(`${edge}: a tick's sync read and sync write go through`, async () => {
      const bus = new ServoBus({ protocol: protocolNamed('feetech'), timeoutMs: 200 });
      const link = edge.startsWith('tty') ? await TtyLink.open(bus, { path: pty.near, baud: 1_000_000, reconnect: false }) : await SerialLink.open(bus, { path: pty.near, baud: 1_000_000, reconnect: false });
      try {
        for (let tick = 0; tick < 20; tick++) {
          const joints = await bus.syncRead(IDS, STS.presentPosition.address, 4);
          assert.deepEqual(
            joints.map((j) => j.id),
            IDS,
          );
          await bus.syncWrite(STS.goalPosition.address, new Map(IDS.map((id) => [id, [tick, 0x08]])));
        }
        await bus.ping(14);
        assert.equal(decodeRegister(STS.goalPosition, sim.table(14).subarray(42, 44)), 0x0813);
      } finally {
        bus.close();
        await link.close();
      }
    });
  }

  it('tty: a vanished device fails the waiting transaction, and the bus is reattached when it is back', async () => {
    const bus = new ServoBus({ protocol: protocolNamed('feetech'), timeoutMs: 2000, retries: 0 });
    const link = await TtyLink.open(bus, { path: pty.near, baud: 1_000_000, retryMs: 50 });
    try {
      sim.silence(3);
      const waiting = bus.ping(3).then(
        () => 'answered',
        (err: unknown) => err,
      );
      await new Promise((r) => setTimeout(r, 20));
      sim.close();
      await pty.unplug();
      const failed = await waiting;
      assert.ok(failed instanceof BusLostError && /^serial link to .* lost$/.test(failed.message), String(failed));
      const back = once(bus, 'attached');
      await pty.open();
      sim = ServoSim.open(pty.far, { protocol: 'feetech', servos: IDS.map((id) => ({ id, model: 'STS3215' })) });
      await back;
      assert.equal((await bus.ping(3)).id, 3);
    } finally {
      bus.close();
      await link.close();
    }
  });
});
