/**
 * `quackd bridge probe` and `quackd bus scan` talk to a port: each refuses a missing or unknown
 * sub-command, a stray argument and a missing --port in one line (exit 2) with a hint, before it
 * opens anything.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exitCodeOf, UsageError } from '../../src/cli/errors.js';
import { bridgeCommand } from '../../src/commands/bridge.js';
import { busCommand } from '../../src/commands/bus.js';
import type { Command } from '../../src/commands/command.js';
import { captured } from '../helpers/quackd.js';

async function refusal(command: Command, argv: readonly string[]): Promise<{ message: string; hint: string | undefined }> {
  try {
    await command.run(argv, captured().invocation);
  } catch (err) {
    assert.ok(err instanceof UsageError, String(err));
    assert.equal(exitCodeOf(err), 2);
    return { message: err.message, hint: err.hint };
  }
  assert.fail(`${command.name} ${argv.join(' ')} did not fail`);
}

for (const [command, sub] of [
  [bridgeCommand, 'probe'],
  [busCommand, 'scan'],
] as const) {
  const name = command.name;
  describe(`quackd ${name} ${sub}, refused before any port opens`, () => {
    const tryHint = `try 'quackd ${name} ${sub} --port PATH'`;

    it('no sub-command, or an unknown one: named, with the one there is', async () => {
      assert.deepEqual(await refusal(command, []), { message: `${name}: missing sub-command`, hint: tryHint });
      assert.deepEqual(await refusal(command, ['xyzzy']), { message: `${name}: unknown sub-command "xyzzy"`, hint: tryHint });
      const close = await refusal(command, [sub.slice(0, -1)]);
      assert.equal(close.message, `${name}: unknown sub-command "${sub.slice(0, -1)}" (did you mean "${sub}"?)`);
    });

    it('a stray argument after it is named', async () => {
      assert.deepEqual(await refusal(command, [sub, '/dev/ttyUSB0']), { message: `${name} ${sub}: unexpected argument "/dev/ttyUSB0"`, hint: tryHint });
    });

    it('no --port (or an empty one): asked for, with the ports this machine has', async () => {
      for (const argv of [[sub], [sub, '--port', '']]) {
        const r = await refusal(command, argv);
        assert.equal(r.message, `${name} ${sub}: --port is required`);
        assert.match(r.hint ?? '', /^e\.g\. --port \/dev\/serial\/by-id\/\.\.\.; /);
      }
    });
  });
}
