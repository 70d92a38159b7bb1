/** The info lines a piece of quackd logs, kept as their messages: run it inside withLogs(journal.root, …). */
import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '../../src/log.js';

export interface Journal {
  readonly root: Logger;
  /** Each line's message (`run started: hello-world on den by cli user ana (uid 1000)`), in order. */
  readonly lines: string[];
}

export function journal(): Journal {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter((l) => l !== '')) lines.push(String((JSON.parse(line) as { msg?: unknown }).msg));
      done();
    },
  });
  return { root: createLogger('info', sink), lines };
}
