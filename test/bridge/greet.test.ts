/**
 * greet(): hello is asked again until one is answered within its second, so a first hello the
 * firmware dropped (its output backed up while nobody read the port) does not fail the open; a
 * firmware that never answers fails in one line after the second; a lost link fails at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HELLO_TIMEOUT_MS, greet } from '../../src/bodies/microduck/jsonrpc/greet.js';
import { BodyError } from '../../src/bodies/body.js';
import { LinkLostError, RequestTimeoutError } from '../../src/bridge/errors.js';
import type { Hello } from '../../src/bridge/protocol.js';

const HELLO = { protocol: 1, firmware: 'quackd-fw test', board: 'test', boot: 7 } as unknown as Hello;

/** A client whose n-th hello (from 1) is answered after `answerMs` by `answer(n)`, or never. */
function client(answer: (n: number) => 'hello' | 'never' | Error, answerMs = 5) {
  const asked: number[] = [];
  return {
    asked,
    hello(timeoutMs?: number): Promise<Hello> {
      const n = asked.push(timeoutMs ?? 0);
      const what = answer(n);
      return new Promise((resolve, reject) => {
        if (what === 'hello') setTimeout(() => resolve(HELLO), answerMs);
        else if (what instanceof Error) setTimeout(() => reject(what), answerMs);
        else setTimeout(() => reject(new RequestTimeoutError('hello', timeoutMs ?? 0)), timeoutMs);
      });
    },
  };
}

describe('greet', () => {
  it('asks again when the first hello goes unanswered, and takes the answer', async () => {
    const c = client((n) => (n === 1 ? 'never' : 'hello'));
    assert.equal((await greet(c, 'port')).boot, 7);
    assert.equal(c.asked.length, 2);
    assert.ok((c.asked[1] ?? 0) < HELLO_TIMEOUT_MS, 'the second ask waits only to the same deadline');
  });

  it('a slow answer to the first hello still counts', async () => {
    const c = client(() => 'hello', 400);
    assert.equal((await greet(c, 'port')).boot, 7);
  });

  it('a firmware that never answers fails after the timeout, in one line', async () => {
    const c = client(() => 'never');
    const t0 = performance.now();
    await assert.rejects(greet(c, '/dev/ttyACM0'), (err: unknown) => err instanceof BodyError && err.message === `no hello from the firmware on /dev/ttyACM0 within ${HELLO_TIMEOUT_MS} ms: is it running quackd-fw at the same baud?`);
    assert.ok(performance.now() - t0 >= HELLO_TIMEOUT_MS - 5);
    assert.ok(c.asked.length >= 3, `asked ${c.asked.length} times`);
  });

  it('a lost link fails at once, without asking again', async () => {
    const c = client(() => new LinkLostError('serial link to p lost'));
    await assert.rejects(greet(c, 'p'), /serial link to p lost/);
    assert.equal(c.asked.length, 1);
  });

  it('refuses another protocol', async () => {
    const c = { hello: () => Promise.resolve({ ...HELLO, protocol: 2 }) };
    await assert.rejects(greet(c, 'p'), /speaks protocol 2; quackd speaks 1/);
  });
});
