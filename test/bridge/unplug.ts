/**
 * The unplug both serial links (serialport's SerialLink on the main thread, the worker's TtyLink)
 * must survive alike: a request waiting when the device goes fails at once, hello fails fast
 * while it is gone, and the link says `restored` when it comes back with a new firmware boot.
 */
import assert from 'node:assert/strict';
import { once, type EventEmitter } from 'node:events';
import type { BridgeClient } from '../../src/bridge/client.js';
import { LinkLostError } from '../../src/bridge/errors.js';
import type { Hello } from '../../src/bridge/protocol.js';
import type { Rig } from './rig.js';

type Link = EventEmitter & { readonly connected: boolean };
const within = (ms: number) => ({ signal: AbortSignal.timeout(ms) });

/** Unplugs with a request in flight, checks it failed, plugs back in with a restarted firmware; the hellos before and after. */
export async function unplugAndRestore(rig: Rig, client: BridgeClient, link: Link): Promise<{ first: Hello; second: Hello }> {
  const first = await client.hello();
  const lost = once(link, 'lost', within(3000));
  await rig.killFirmware(); // first, so nothing answers the request below before the unplug
  const waiting = client.request('get_state', {}, 5000).then(
    () => 'answered',
    (err: unknown) => err,
  );
  await rig.unplug();
  await lost;
  assert.ok((await waiting) instanceof LinkLostError, 'a waiting request must fail when the link goes');
  await assert.rejects(client.hello(), LinkLostError);
  assert.equal(link.connected, false);

  const restored = once(link, 'restored', within(5000));
  await rig.startLink();
  await rig.startFirmware();
  await restored;
  const second = await client.hello();
  assert.notEqual(second.boot, first.boot, 'a restarted firmware has a new boot id');
  return { first, second };
}
