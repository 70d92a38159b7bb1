/**
 * `quackd config check` shows the live Foxglove server as `quackd serve` would start it: off by
 * default, its address, whether a client must give a token (and where the token comes from,
 * never the token), and, off loopback without one, that serve would refuse to start.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { childEnv, runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const TOKEN = 'f0x-t0ken-0123456789abcdef';

async function check(config: string | undefined, extra: NodeJS.ProcessEnv = {}): Promise<{ stdout: string; json: Record<string, unknown> }> {
  const dir = tempDir();
  if (config !== undefined) writeFileSync(join(dir, 'config.yaml'), config.replaceAll('DIR', dir));
  writeFileSync(join(dir, 'foxglove-token'), TOKEN, { mode: 0o600 });
  const env = childEnv({ QUACKD_HOME: dir, NO_COLOR: '1', ...extra });
  const text = await runCli(['config', 'check'], { env });
  const json = await runCli(['config', 'check', '--json'], { env });
  assert.doesNotMatch(text.stdout + json.stdout, new RegExp(TOKEN), 'the token is never shown');
  return { stdout: text.stdout, json: (JSON.parse(json.stdout) as { foxglove: Record<string, unknown> }).foxglove };
}

test('config check: foxglove off by default, on loopback without a token, off loopback with one or not', async () => {
  const off = await check(undefined);
  assert.match(off.stdout, /foxglove +off \(quackd serve --foxglove serves ws:\/\/127\.0\.0\.1:8765\) +\(default\)/);

  const loop = await check('foxglove: {}\n');
  assert.match(loop.stdout, /foxglove +ws:\/\/127\.0\.0\.1:8765 with quackd serve · no token: loopback, this machine only +\(foxglove in /);
  assert.deepEqual(loop.json['settings'], { host: '127.0.0.1', port: 8765, token: false });

  const guarded = await check('foxglove:\n  listen: 0.0.0.0:8770\n  token_file: DIR/foxglove-token\n');
  assert.match(guarded.stdout, /foxglove +ws:\/\/0\.0\.0\.0:8770 with quackd serve · token required \(token_file \S+foxglove-token\)/);
  assert.deepEqual(guarded.json['settings'], { host: '0.0.0.0', port: 8770, token: true });

  const byEnv = await check('foxglove: { listen: 0.0.0.0 }\n', { QUACKD_FOXGLOVE_TOKEN: TOKEN });
  assert.match(byEnv.stdout, /token required \(QUACKD_FOXGLOVE_TOKEN\)/);

  const open = await check('foxglove: { listen: 0.0.0.0 }\n');
  assert.match(open.stdout, /0\.0\.0\.0 is reachable from other machines and no token is given: quackd serve would refuse to start/);
});
