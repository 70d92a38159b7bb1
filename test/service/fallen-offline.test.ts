/**
 * A held Microduck that fell while idle, then lost its link (the rig's pty unplugged, as a cable pulled
 * out), under `quackd serve` (the built bin, a child): `quackd status` says `offline`, not
 * `fallen`, since nothing reaches the duck and nobody knows it still lies there; the fall stays in
 * `fell`. With the link back its loop says again that it is down (`fallen`). Nothing moves: no
 * run starts.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Rig, missingTools } from '../bridge/rig.js';
import { runCli } from '../helpers/cli.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

interface Shown {
  readonly activity: string;
  readonly link?: string;
  readonly fell?: { readonly tilt_deg: number };
}

describe('a held duck that fell, then lost its link, under quackd serve', { skip: missingTools(), timeout: 180_000 }, () => {
  let rig: Rig;
  let home: string;
  const env = (): NodeJS.ProcessEnv => ({ QUACKD_HOME: home });
  const bench = async (): Promise<Shown> => {
    const r = await runCli(['status', '--json'], { env: env() });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const found = (JSON.parse(r.stdout) as { robots: (Shown & { robot: string })[] }).robots.find((x) => x.robot === 'bench');
    assert.ok(found !== undefined, r.stdout);
    return found;
  };
  const until = async (what: string, ok: (s: Shown) => boolean, ms = 30_000): Promise<Shown> => {
    const by = Date.now() + ms;
    for (;;) {
      const s = await bench();
      if (ok(s)) return s;
      if (Date.now() > by) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(s)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };

  before(async () => {
    // Knocked over by SIGUSR1; --reopen: the duck waits on its own battery while the link is away.
    rig = await Rig.start(['--reopen', '--watchdog-ms', '5000', '--tilt-at', 'USR1:85']);
  });
  after(async () => {
    await rig?.cleanup();
  });

  it('is offline while its link is lost, and fallen again once it is back', async () => {
    home = tempDir('quackd-fallen-offline-');
    // Both within the test: tempDir() removes, and serve() kills what they made when the test that made it ends.
    const serving = await serve(home, `robots:\n  bench: { body: microduck:jsonrpc, port: ${JSON.stringify(rig.hostPath)} }\nmqtt: false\n`);
    await until('the link', (s) => s.link === 'ok' && s.activity === 'idle');

    rig.signalFirmware('SIGUSR1');
    const fallen = await until('the fall', (s) => s.activity === 'fallen');
    assert.equal(fallen.link, 'ok');
    assert.ok((fallen.fell?.tilt_deg ?? 0) > 45, JSON.stringify(fallen));

    await rig.unplug({ keepFirmware: true });
    const lost = await until('the loss', (s) => s.link === 'lost');
    assert.equal(lost.activity, 'offline', 'a lost link is shown before a fall seen earlier');
    assert.deepEqual(lost.fell, fallen.fell, 'the fall is kept');
    const shown = await runCli(['status'], { env: env() });
    assert.match(shown.stdout, /^bench +offline +microduck:jsonrpc$/m);

    await rig.startLink();
    await until('fallen again once the link is back', (s) => s.link === 'ok' && s.activity === 'fallen');

    const transcripts = join(home, 'transcripts');
    assert.deepEqual(existsSync(transcripts) ? readdirSync(transcripts) : [], [], 'no run');
    serving.child.kill('SIGTERM');
    assert.equal((await serving.exited).code, 0, serving.stderr());
  });
});
