/**
 * The first words with a firmware: hello, and a check that it speaks quackd's protocol. Shared by
 * the body (each later run says hello again) and the bridge plant (which opens the link in the
 * control worker), with the same one-line errors. Hello is asked again until answered
 * (bridge/hello.ts): the first can be lost.
 */
import type { BridgeLink } from '../../../bridge/channel.js';
import { RequestTimeoutError } from '../../../bridge/errors.js';
import { askHello } from '../../../bridge/hello.js';
import { PROTOCOL_VERSION, type Hello } from '../../../bridge/protocol.js';
import { BodyError } from '../../body.js';

export const HELLO_TIMEOUT_MS = 1000;

/** Say hello over an attached client and check that the far end speaks our protocol. */
export async function greet(client: Pick<BridgeLink, 'hello'>, label: string, silentHint = 'is it running quackd-fw at the same baud?'): Promise<Hello> {
  let hello: Hello;
  try {
    hello = await askHello(client, HELLO_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof RequestTimeoutError) {
      throw new BodyError(`no hello from the firmware on ${label} within ${HELLO_TIMEOUT_MS} ms: ${silentHint}`);
    }
    throw new BodyError(err instanceof Error ? err.message : String(err));
  }
  if (hello.protocol !== PROTOCOL_VERSION) {
    throw new BodyError(`the firmware on ${label} speaks protocol ${hello.protocol}; quackd speaks ${PROTOCOL_VERSION}: update one of them`);
  }
  return hello;
}
