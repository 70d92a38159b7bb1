/**
 * `quackd memory clear` where the body's memory is shared with the fleet (memory.share), the built
 * CLI as a child process on a real store: its help, its question and its result say that the
 * clear reaches every robot of that body, since the service sends a forget for each shared entry.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../helpers/cli.js';
import { onTerminal } from '../helpers/terminal.js';
import { tempDir } from '../helpers/tmp.js';

const config = (share: string) => `robots:\n  hall: { body: microduck:sim2d }\nmqtt:\n  url: mqtt://127.0.0.1:1\n  homeassistant: { enabled: false }\nmemory:\n  share: ${share}\n`;

describe('quackd memory clear and fleet memory (CLI)', () => {
  it('says the clear goes to the fleet when the body is shared, and only then', async () => {
    const home = tempDir('quackd-clear-fleet-');
    writeFileSync(join(home, 'config.yaml'), config('true'));
    const q = (...args: string[]) => runCli(['memory', ...args], { env: { QUACKD_HOME: home, COLUMNS: '300' } });
    assert.equal((await q('add', 'the charger is under the desk')).code, 0);

    assert.match((await q('clear', '--help')).stdout, /With memory\.share on in the config, the\s+body's shared memory is the fleet's/);
    const asked = await onTerminal(['memory', 'clear', '--robot', 'hall'], 300, { QUACKD_HOME: home }, 30_000, 'n\n');
    assert.ok(
      asked.lines.some((l) => l.includes('clear the 1 entry of microduck:sim2d; its notes go on every robot of the fleet with this body too (memory.share)? [y/N]')),
      asked.lines.join('\n'),
    );
    assert.ok(asked.lines.includes('nothing cleared'), asked.lines.join('\n'));
    const cleared = await q('clear', '--yes', '--robot', 'hall');
    assert.equal(cleared.code, 0, cleared.stderr);
    assert.equal(cleared.stdout.trim(), 'cleared 1 entry of microduck:sim2d; its notes go on every robot of the fleet with this body too (memory.share)');

    writeFileSync(join(home, 'config.yaml'), config('episodes'));
    assert.match((await q('clear', '--yes', '--robot', 'hall')).stdout, /its notes and episodes go on every robot of the fleet/);
    // A body no robot of this quackd has is not shared: its clear is its own.
    assert.equal((await q('clear', '--yes', '--robot', 'microduck:jsonrpc')).stdout.trim(), 'cleared 0 entries of microduck:jsonrpc');
  });
});
