/**
 * Losing the far end: the port vanishing (the rig's pty gone, as a USB unplug removes the device node)
 * and the firmware restarting behind a port that stays. The client fails fast while the link is
 * down and works again once it is back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BridgeClient } from '../../src/bridge/client.js';
import { RequestTimeoutError } from '../../src/bridge/errors.js';
import { SerialLink } from '../../src/bridge/serial.js';
import { unplugAndRestore } from './unplug.js';
import { Rig, missingTools, sleep } from './rig.js';

describe('bridge reconnect', { skip: missingTools() }, () => {
  it('fails fast while unplugged and reconnects when the port comes back', async () => {
    const rig = await Rig.start();
    const client = new BridgeClient();
    let link: SerialLink | undefined;
    try {
      link = await SerialLink.open(client, { path: rig.hostPath, retryMs: 50 });
      const { second } = await unplugAndRestore(rig, client, link);
      assert.equal(second.protocol, 1);
    } finally {
      client.close();
      await link?.close();
      await rig.cleanup();
    }
  });

  it('times out while the firmware is down and works again after it restarts', async () => {
    const rig = await Rig.start();
    const client = new BridgeClient();
    let link: SerialLink | undefined;
    try {
      link = await SerialLink.open(client, { path: rig.hostPath });
      await client.hello();
      await rig.killFirmware();
      await assert.rejects(client.hello(200), RequestTimeoutError);
      await rig.startFirmware();
      let hello: unknown;
      for (let i = 0; i < 20 && hello === undefined; i++) {
        hello = await client.hello(200).catch(() => undefined);
        if (hello === undefined) await sleep(50);
      }
      assert.ok(hello !== undefined, 'no hello after the firmware restarted');
      assert.equal(client.counters().timeouts >= 1, true);
    } finally {
      client.close();
      await link?.close();
      await rig.cleanup();
    }
  });
});
