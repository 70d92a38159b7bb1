/**
 * The control worker's serial link (src/bridge/tty.ts) keeps serial.ts's promises, over real ptys
 * with the host firmware: one opener at a time (the lock serialport takes, so the two paths
 * refuse each other with the same words, and a holder that dies lets go), and a device that goes
 * away and comes back is reopened, its boot id telling a firmware that restarted from one that
 * kept running (--reopen: a duck on its own battery while its USB cable is out).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { BridgeClient } from '../../src/bridge/client.js';
import { PortError } from '../../src/bridge/errors.js';
import { SerialLink } from '../../src/bridge/serial.js';
import { TtyLink } from '../../src/bridge/tty.js';
import { unplugAndRestore } from './unplug.js';
import { Rig, missingTools } from './rig.js';

const LOCKED = /^cannot open .*: another program has it open$/;
const LOCKED_HINT = 'another quackd run, or a serial monitor?';

function refusal(open: () => unknown): Promise<PortError> {
  return Promise.resolve()
    .then(open)
    .then(
      () => assert.fail('the second open was not refused'),
      (err: unknown) => {
        assert.ok(err instanceof PortError, String(err));
        return err;
      },
    );
}

const within = (ms: number) => ({ signal: AbortSignal.timeout(ms) });

describe('the worker link: one opener at a time', { skip: missingTools() }, () => {
  it('a second TtyLink on the port is refused, in one line with a hint; the first still works, and once it closes the port opens again', async () => {
    const rig = await Rig.start();
    const first = new BridgeClient();
    const second = new BridgeClient();
    const link = await TtyLink.open(first, { path: rig.hostPath, baud: 1_000_000 });
    try {
      const err = await refusal(() => TtyLink.open(second, { path: rig.hostPath, baud: 1_000_000 }));
      assert.match(err.message, LOCKED);
      assert.equal(err.hint, LOCKED_HINT);
      assert.equal(err.trouble, 'held');
      assert.equal(second.attached, false);
      assert.equal((await first.hello()).protocol, 1, 'the refused opener disturbed the first');
      await link.close();
      const again = await TtyLink.open(second, { path: rig.hostPath, baud: 1_000_000 });
      assert.equal((await second.hello()).protocol, 1);
      await again.close();
    } finally {
      first.close();
      second.close();
      await link.close();
      await rig.cleanup();
    }
  });

  it('serialport (the main-thread path, `bridge probe`) and the worker path refuse each other with the same message and hint', async () => {
    const rig = await Rig.start();
    const a = new BridgeClient();
    const b = new BridgeClient();
    try {
      const serial = await SerialLink.open(a, { path: rig.hostPath, reconnect: false });
      const byTty = await refusal(() => TtyLink.open(b, { path: rig.hostPath, baud: 1_000_000 }));
      await serial.close();
      const tty = await TtyLink.open(a, { path: rig.hostPath, baud: 1_000_000 });
      const bySerial = await refusal(() => SerialLink.open(b, { path: rig.hostPath, reconnect: false }));
      await tty.close();
      assert.equal(byTty.message, bySerial.message);
      assert.equal(byTty.hint, bySerial.hint);
      assert.equal(byTty.trouble, bySerial.trouble);
      assert.match(bySerial.message, LOCKED);
    } finally {
      a.close();
      b.close();
      await rig.cleanup();
    }
  });
});

describe('the worker link: unplugged and back', { skip: missingTools() }, () => {
  it('fails fast while unplugged, reopens when the port is back, and a restarted firmware has a new boot id', async () => {
    const rig = await Rig.start();
    const client = new BridgeClient();
    const link = await TtyLink.open(client, { path: rig.hostPath, baud: 1_000_000, retryMs: 50 });
    try {
      await unplugAndRestore(rig, client, link);
    } finally {
      client.close();
      await link.close();
      await rig.cleanup();
    }
  });

  it('a firmware that kept running while unplugged answers with the same boot id: a blip, not a reboot', async () => {
    const rig = await Rig.start(['--reopen']);
    const client = new BridgeClient();
    const link = await TtyLink.open(client, { path: rig.hostPath, baud: 1_000_000, retryMs: 50 });
    try {
      const first = await client.hello();
      const lost = once(link, 'lost', within(3000));
      await rig.unplug({ keepFirmware: true });
      await lost;
      const restored = once(link, 'restored', within(5000));
      await rig.startLink();
      await restored;
      // The firmware finds its port again on its own (every 50 ms): ask until it answers.
      let second: Awaited<ReturnType<BridgeClient['hello']>> | undefined;
      for (let i = 0; i < 40 && second === undefined; i++) second = await client.hello(200).catch(() => undefined);
      assert.ok(second !== undefined, 'no hello after the link came back');
      assert.equal(second.boot, first.boot);
      // The firmware's stderr comes down its own pipe: its "link back" may be read after its hello.
      const logged = /link (closed|hung up) .*reopening it when it is back[\s\S]*link back/;
      for (let i = 0; i < 40 && !logged.test(rig.firmwareLog()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.match(rig.firmwareLog(), logged);
    } finally {
      client.close();
      await link.close();
      await rig.cleanup();
    }
  });

  it('closing while unplugged stops looking for the port', async () => {
    const rig = await Rig.start();
    const client = new BridgeClient();
    const link = await TtyLink.open(client, { path: rig.hostPath, baud: 1_000_000, retryMs: 50 });
    try {
      const lost = once(link, 'lost', within(3000));
      await rig.unplug();
      await lost;
      await link.close();
      let restored = false;
      link.on('restored', () => (restored = true));
      await rig.startLink();
      await rig.startFirmware();
      await new Promise((r) => setTimeout(r, 300));
      assert.equal(restored, false);
      assert.equal(client.attached, false);
    } finally {
      client.close();
      await link.close();
      await rig.cleanup();
    }
  });
});
