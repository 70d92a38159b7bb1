/**
 * The first words with a firmware: hello, and a check that it speaks quackd's protocol. Shared by
 * the body (each later run says hello again) and the bridge plant (which opens the link in the
 * control worker), with the same one-line errors.
 *
 * Hello is asked again every HELLO_AGAIN_MS until one is answered or HELLO_TIMEOUT_MS have passed
 * (every ask waits to the same deadline, so a slow answer to the first still counts): the first
 * can be lost. Measured on the host firmware: a port nobody read for 3 s had backed its output up,
 * the firmware dropped 36 frames for want of room, the answer to the first hello among them.
 */
import type { BridgeLink } from '../../../bridge/channel.js';
import { RequestTimeoutError } from '../../../bridge/errors.js';
import { PROTOCOL_VERSION, type Hello } from '../../../bridge/protocol.js';
import { BodyError } from '../../body.js';

export const HELLO_TIMEOUT_MS = 1000;
const HELLO_AGAIN_MS = 250;

/** The first answer to a hello asked every `againMs` until `timeoutMs`; a failure other than a timeout ends it at once. */
function helloWithin(client: Pick<BridgeLink, 'hello'>, timeoutMs: number, againMs: number): Promise<Hello> {
  const deadline = performance.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    let waiting = 0;
    let done = false;
    const finish = (settle: () => void): void => {
      if (done) return;
      done = true;
      clearInterval(again);
      settle();
    };
    const timedOut = (): void => finish(() => reject(new RequestTimeoutError('hello', timeoutMs)));
    const ask = (): void => {
      const left = Math.round(deadline - performance.now());
      if (left <= 0) {
        clearInterval(again);
        if (waiting === 0) timedOut();
        return;
      }
      waiting += 1;
      client.hello(left).then(
        (hello) => finish(() => resolve(hello)),
        (err: unknown) => {
          waiting -= 1;
          if (!(err instanceof RequestTimeoutError)) finish(() => reject(err));
          else if (waiting === 0 && performance.now() >= deadline - 1) timedOut();
        },
      );
    };
    const again = setInterval(ask, againMs);
    ask();
  });
}

/** Say hello over an attached client and check that the far end speaks our protocol. */
export async function greet(client: Pick<BridgeLink, 'hello'>, label: string, silentHint = 'is it running quackd-fw at the same baud?'): Promise<Hello> {
  let hello: Hello;
  try {
    hello = await helloWithin(client, HELLO_TIMEOUT_MS, HELLO_AGAIN_MS);
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
