/**
 * Hello, asked again every HELLO_AGAIN_MS until one is answered or the timeout has passed (every
 * ask waits to the same deadline, so a slow answer to the first still counts): the first can be
 * lost. Measured on the host firmware: a port nobody read for 3 s had backed its output up, the
 * firmware dropped 36 frames for want of room, the answer to the first hello among them; and a
 * firmware that wakes to the hello and to room on the wire at once reads first and drops it too.
 * A failure other than a timeout (the link lost) ends it at once.
 */
import type { BridgeLink } from './channel.js';
import { RequestTimeoutError } from './errors.js';
import type { Hello } from './protocol.js';

export const HELLO_AGAIN_MS = 250;

export function askHello(client: Pick<BridgeLink, 'hello'>, timeoutMs: number, againMs = HELLO_AGAIN_MS): Promise<Hello> {
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
