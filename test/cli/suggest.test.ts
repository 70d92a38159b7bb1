/** Misspelt command and sub-command names get a "did you mean", in one line, exit 2. */
import { exitCodeOf } from '../../src/cli/errors.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../../src/cli/errors.js';
import { bridgeCommand } from '../../src/commands/bridge.js';
import { configCommand } from '../../src/commands/config.js';
import { memoryCommand } from '../../src/commands/memory.js';
import { transcriptCommand } from '../../src/commands/transcript.js';
import type { Command } from '../../src/commands/command.js';
import { runCli } from '../helpers/cli.js';
import { captured, quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';


async function usageError(command: Command, argv: readonly string[]): Promise<string> {
  try {
    await command.run(argv, captured().invocation);
  } catch (err) {
    assert.ok(err instanceof UsageError, String(err));
    assert.equal(exitCodeOf(err), 2);
    return err.message;
  }
  assert.fail(`${command.name} ${argv.join(' ')} did not fail`);
}

describe('did you mean, for sub-commands', () => {
  it('memory, transcript, config and bridge suggest the closest sub-command', async () => {
    assert.equal(await usageError(memoryCommand, ['shwo']), 'memory: unknown sub-command "shwo" (did you mean "show"?)');
    assert.equal(await usageError(transcriptCommand, ['lsit']), 'transcript: unknown sub-command "lsit" (did you mean "list"?)');
    assert.equal(await usageError(configCommand, ['chek']), 'config: unknown sub-command "chek" (did you mean "check"?)');
    assert.equal(await usageError(bridgeCommand, ['prboe']), 'bridge: unknown sub-command "prboe" (did you mean "probe"?)');
  });

  it('a name close to nothing keeps the plain hint', async () => {
    assert.equal(await usageError(memoryCommand, ['xyzzyx']), 'memory: unknown sub-command "xyzzyx"');
  });
});

describe('did you mean, for commands', () => {
  const env = { QUACKD_HOME: tempDir('quackd-suggest-') };
  it('quackd rnu: one line, exit 2', async () => {
    const r = await runCli(['rnu', 'hello-world'], { env });
    assert.equal(r.code, 2);
    assert.equal(r.stderr, 'quackd: unknown command "rnu" (did you mean "run"?)\n');
    assert.equal(r.stdout, '');
  });

  it('quackd help memroy, and quackd memory shwo', async () => {
    const help = await quackd(['help', 'memroy'], { env });
    assert.equal(help.code, 2);
    assert.equal(help.stderr, 'quackd: unknown command "memroy" (did you mean "memory"?)\n');
    const sub = await quackd(['memory', 'shwo'], { env });
    assert.equal(sub.code, 2);
    assert.equal(sub.stderr, 'quackd: memory: unknown sub-command "shwo" (did you mean "show"?)\n');
  });
});
