/**
 * A transcript write that fails while the pilot waits on its model stops the run then, not at
 * the run's next event (which a hung model may never bring). The disk is made to fail the one
 * write that carries the second call's request line, as a full SD card would, some ms later.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { describe, it } from 'node:test';
import { startRun } from '../../src/run/start-run.js';
import { noTtyGate } from '../../src/safety/gate.js';
import { duck } from '../helpers/ducks.js';
import { scripted } from '../helpers/scripted-provider.js';
import { tempDir } from '../helpers/tmp.js';

let failing: ((bytes: Buffer) => boolean) | undefined;
const realWrite = fs.write;
fs.write = ((...args: unknown[]): void => {
  const [, buffer] = args;
  const done = args.at(-1) as (err: NodeJS.ErrnoException | null, written: number) => void;
  if (Buffer.isBuffer(buffer) && failing?.(buffer) === true) {
    setTimeout(() => done(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }), 0), 20);
    return;
  }
  Reflect.apply(realWrite, fs, args);
}) as typeof fs.write;
// The writer's `import { write } from 'node:fs'` sees the wrapped one.
syncBuiltinESMExports();

describe('a transcript that fails while the model is thinking', () => {
  it('stops the run at once, with the reason, instead of waiting out the model', async () => {
    failing = (bytes) => bytes.includes('"type":"request","call":2');
    try {
      const provider = scripted([[{ name: 'quack', args: {} }], 'hang']);
      const report = await startRun({
        duck: duck('verbs: [quack]\nbudgets: { steps: 5, llm_calls: 5, seconds: 120 }'),
        robot: 'microduck:sim2d',
        seed: 1,
        provider,
        gate: noTtyGate,
        dryRun: false,
        transcriptsDir: tempDir(),
        signal: new AbortController().signal,
      });
      assert.equal(report.outcome.status, 'error');
      assert.match(report.outcome.reason, /^transcript .* cannot be written \(ENOSPC\); the run was stopped$/);
      // The second call was asked and then given up: the hung model did not hold the run.
      assert.equal(provider.requests.length, 2);
      assert.ok(report.seconds < 60, `the run waited ${report.seconds} s of its 120 s budget`);
    } finally {
      failing = undefined;
    }
  });
});
