/**
 * Losing the far end: the port vanishing (socat gone, as a USB unplug removes the device node)
 * and the firmware restarting behind a port that stays. The client fails fast while the link is
 * down and works again once it is back.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BridgeClient } from '../../src/bridge/client.js';
import { LinkLostError, RequestTimeoutError } from '../../src/bridge/errors.js';
import { SerialLink } from '../../src/bridge/serial.js';
import { Rig, missingTools, sleep } from './rig.js';

function once(link: SerialLink, event: 'lost' | 'restored', timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${event}' within ${timeoutMs} ms`)), timeoutMs);
    link.once(event, () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

describe('bridge reconnect', { skip: missingTools() }, () => {
  it('fails fast while unplugged and reconnects when the port comes back', async () => {
    const rig = await Rig.start();
    const client = new BridgeClient();
    let link: SerialLink | undefined;
    try {
      link = await SerialLink.open(client, { path: rig.hostPath, retryMs: 50 });
      const first = await client.hello();
      const lost = once(link, 'lost', 3000);
      await rig.killFirmware(); // first, so nothing can answer the request below before the unplug
      const waiting = client.request('get_state', {}, 5000).then(
        () => 'answered',
        (err: unknown) => err,
      );
      await rig.unplug();
      await lost;
      assert.ok((await waiting) instanceof LinkLostError, 'a waiting request must fail when the link goes');
      await assert.rejects(client.hello(), LinkLostError);
      assert.equal(link.connected, false);

      const restored = once(link, 'restored', 5000);
      await rig.startLink();
      await rig.startFirmware();
      await restored;
      const second = await client.hello();
      assert.equal(second.protocol, 1);
      assert.notEqual(second.boot, first.boot, 'a restarted firmware has a new boot id');
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
