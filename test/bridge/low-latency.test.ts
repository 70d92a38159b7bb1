/**
 * The serial edge asks the driver for low latency (ASYNC_LOW_LATENCY), as Dynamixel's and many
 * robots' serial code does, so an FTDI adapter (the U2D2) hands a servo's reply over at once
 * instead of after its 16 ms latency timer, longer than a bus transaction waits. The flag word is
 * serial_struct's fifth int: checked on a real UART driver where the machine has one (/dev/ttyS0,
 * the 8250), and the open paths ask it of a real pty, which has no such timer (and says so).
 */
import assert from 'node:assert/strict';
import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { describe, it } from 'node:test';
import koffi from 'koffi';
import { BridgeClient } from '../../src/bridge/client.js';
import { askLowLatency, type Libc } from '../../src/bridge/low-latency.js';
import { SerialLink } from '../../src/bridge/serial.js';
import { TtyLink } from '../../src/bridge/tty.js';
import { Rig, missingTools } from './rig.js';

const TIOCGSERIAL = 0x541e;
const TIOCSSERIAL = 0x541f;
const LOW_LATENCY = 0x2000;
/** Not this process's terminal, and no wait for a carrier nobody raises. */
const NO_WAIT = constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK;

/** A driver's serial_struct in memory: its flags word at byte 16, and what each ioctl did. */
function fakeDriver(flags: number, fail: { get?: number; set?: number; keeps?: boolean } = {}) {
  const struct = new Uint8Array(72);
  new DataView(struct.buffer).setInt32(16, flags, true);
  struct[0] = 4; // type: another field, which a set must hand back as it was
  const calls: string[] = [];
  let errno = 0;
  const lib: Libc = {
    errno: () => errno,
    ioctl(_fd, request, arg) {
      if (request === TIOCGSERIAL) {
        calls.push('get');
        if (fail.get !== undefined) return ((errno = fail.get), -1);
        arg.set(struct);
        return 0;
      }
      calls.push(`set ${new DataView(arg.buffer, arg.byteOffset).getInt32(16, true).toString(16)} type ${arg[0]}`);
      if (fail.set !== undefined) return ((errno = fail.set), -1);
      if (fail.keeps !== true) struct.set(arg.subarray(0, 72));
      return 0;
    },
  };
  return { lib, calls };
}

describe('asking a serial driver for low latency', () => {
  it('sets the flag beside the others, leaves the rest of the struct as the driver gave it, and reads it back', async () => {
    const d = fakeDriver(0x11000040);
    assert.equal(await askLowLatency(3, d.lib), 'on');
    assert.deepEqual(d.calls, ['get', 'set 11002040 type 4', 'get']);
  });

  it('a flag already on is left alone; a driver without the ioctl has no timer to shorten; a refusal is said', async () => {
    const on = fakeDriver(0x2040);
    assert.equal(await askLowLatency(3, on.lib), 'on');
    assert.deepEqual(on.calls, ['get']);
    assert.equal(await askLowLatency(3, fakeDriver(0, { get: 25 }).lib), 'unsupported');
    assert.deepEqual(await askLowLatency(3, fakeDriver(0, { set: 1 }).lib), { refused: 'errno 1' });
    assert.deepEqual(await askLowLatency(3, fakeDriver(0, { keeps: true }).lib), { refused: 'the driver kept its latency' });
    assert.deepEqual(await askLowLatency(3, null), { refused: 'no ioctl here (koffi did not load)' });
  });

  it('a real UART driver takes it and keeps it: the flag read back from a descriptor of its own', { skip: ttyS0() }, async () => {
    const ioctl = koffi.load('libc.so.6').func('int ioctl(int fd, unsigned long request, _Inout_ uint8_t *arg)') as Libc['ioctl'];
    const fd = openSync('/dev/ttyS0', NO_WAIT);
    const flags = (): number => {
      const s = new Uint8Array(128);
      assert.equal(ioctl(fd, TIOCGSERIAL, s), 0);
      return new DataView(s.buffer).getInt32(16, true);
    };
    const before = flags();
    try {
      clear(ioctl, fd);
      assert.equal(flags() & LOW_LATENCY, 0);
      assert.equal(await askLowLatency(fd), 'on');
      assert.equal(flags(), (before & ~LOW_LATENCY) | LOW_LATENCY);
    } finally {
      // As the machine had it.
      if ((before & LOW_LATENCY) === 0) clear(ioctl, fd);
      closeSync(fd);
    }
  });

  /** Opens `open`'s link on the rig's pty, checks it says the pty has no timer and still carries the firmware's hello; returns the closed link. */
  async function onPty<L extends { readonly lowLatency: unknown; close(): Promise<void> }>(open: (client: BridgeClient, path: string) => Promise<L>): Promise<L> {
    const rig = await Rig.start();
    const client = new BridgeClient();
    const link = await open(client, rig.hostPath);
    try {
      assert.equal(link.lowLatency, 'unsupported');
      assert.equal((await client.hello()).protocol, 1);
    } finally {
      client.close();
      await link.close();
      await rig.cleanup();
    }
    return link;
  }

  it("the worker's link asks it when it opens a port, and a pty says it has no timer", { skip: missingTools() }, async () => {
    await onPty((client, path) => TtyLink.open(client, { path, baud: 1_000_000 }));
  });

  it("the main thread's link (bus scan, calibrate, health) keeps what the driver said while its port is open", { skip: missingTools() }, async () => {
    const link = await onPty((client, path) => SerialLink.open(client, { path, baud: 1_000_000, reconnect: false }));
    assert.equal(link.lowLatency, undefined);
  });
});

function clear(ioctl: Libc['ioctl'], fd: number): void {
  const s = new Uint8Array(128);
  const view = new DataView(s.buffer);
  assert.equal(ioctl(fd, TIOCGSERIAL, s), 0);
  view.setInt32(16, view.getInt32(16, true) & ~LOW_LATENCY, true);
  assert.equal(ioctl(fd, TIOCSSERIAL, s), 0);
}

/** Why the UART check cannot run here, or undefined: it needs /dev/ttyS0 with a UART behind it, opened as this user. */
function ttyS0(): string | undefined {
  if (!existsSync('/dev/ttyS0')) return 'no /dev/ttyS0 here';
  try {
    closeSync(openSync('/dev/ttyS0', NO_WAIT));
    return undefined;
  } catch (err) {
    return `/dev/ttyS0 does not open here: ${(err as Error).message}`;
  }
}
