/**
 * A link blip shorter than the firmware's watchdog on a Microduck held by `quackd serve` (the
 * built bin in a child; the host firmware over a pty with --reopen, as a duck on its own battery,
 * and a 20 s watchdog, so the blip never lets it cut torque itself). A stop that could not be
 * sent while the link was down (`quackd stop` with torque held on; a walk's run ending on the
 * loss) is sent again as the link comes back, and the firmware's read-back, torque off, is what
 * `quackd status` shows and the journal says; the walk's run ends on the loss, never carrying on.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { runCli, type CliResult } from '../helpers/cli.js';
import { serve, type Serving } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';
import { Rig, missingTools, sleep } from './rig.js';

interface Shown {
  readonly activity: string;
  readonly torque?: boolean | null;
  readonly link?: string;
  readonly loop?: { readonly state: string };
}

interface Bench {
  readonly rig: Rig;
  readonly serving: Serving;
  readonly env: NodeJS.ProcessEnv;
  status(): Promise<Shown>;
  until(what: string, ok: (s: Shown) => boolean, timeoutMs?: number): Promise<Shown>;
}

/**
 * A rig whose firmware waits for the link to come back and cuts torque itself only after 20 s,
 * and a `quackd serve` holding it as `bench`; both end with the test.
 */
async function bench(): Promise<Bench> {
  const rig = await Rig.start(['--reopen', '--watchdog-ms', '20000']);
  after(() => rig.cleanup());
  const home = tempDir('quackd-blip-');
  const env = { QUACKD_HOME: home };
  const serving = await serve(home, `robots:\n  bench: { body: microduck:jsonrpc, port: ${JSON.stringify(rig.hostPath)} }\nmqtt: false\n`);
  const status = async (): Promise<Shown> => {
    const r = await runCli(['status', '--json'], { env });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const found = (JSON.parse(r.stdout) as { robots: (Shown & { robot: string })[] }).robots.find((x) => x.robot === 'bench');
    assert.ok(found !== undefined, r.stdout);
    return found;
  };
  const until = async (what: string, ok: (s: Shown) => boolean, timeoutMs = 30_000): Promise<Shown> => {
    const end = Date.now() + timeoutMs;
    let last = await status();
    while (!ok(last)) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; last: ${JSON.stringify(last)}`);
      await sleep(200);
      last = await status();
    }
    return last;
  };
  await until('the link', (s) => s.link === 'ok' && s.torque === false);
  return { rig, serving, env, status, until };
}

describe('a stop lost in a link blip on a Microduck held by quackd serve', { skip: missingTools(), timeout: 240_000 }, () => {
  it('torque held on, a quackd stop while the link is down: sent again once it is back, and status reads torque off', async () => {
    const b = await bench();
    const on = await runCli(['torque', 'bench', 'on', '--yes'], { env: b.env });
    assert.equal(on.code, 0, on.stdout + on.stderr);
    await b.until('torque on', (s) => s.torque === true);

    await b.rig.unplug({ keepFirmware: true });
    await b.until('the loss', (s) => s.link === 'lost');
    const stop = await runCli(['stop', 'bench'], { env: b.env });
    assert.equal(stop.code, 3, stop.stdout + stop.stderr);
    await sleep(500);
    await b.rig.startLink();
    // Well inside the firmware's 20 s: only quackd can have switched it off.
    await b.until('torque off once the link is back', (s) => s.link === 'ok' && s.torque === false, 8000);
    assert.match(b.serving.stderr(), /torque off sent again as the link came back .*: the firmware reads torque off/);
    // What the stop said while the link was down: not sent yet, and that it will be.
    assert.match(stop.stderr, /its body did not confirm the stop: serial link to .* is down: torque off not sent; quackd sends it once the link is back/);
  });

  it('a walk when the link blips: its run ends on the loss, and its stop is sent as the link is back', async () => {
    const b = await bench();
    const walking: Promise<CliResult> = runCli(['do', 'walk', '3', '--robot', 'bench', '--yes'], { env: b.env });
    await b.until('the walk under way', (s) => s.torque === true && s.loop?.state === 'running');
    await sleep(300);
    await b.rig.unplug({ keepFirmware: true });
    await sleep(1500);
    await b.rig.startLink();
    const walked = await walking;
    assert.equal(walked.code, 3, walked.stdout + walked.stderr);
    assert.match(walked.stdout + walked.stderr, /serial link to .* lost/);
    await b.until('torque off once the link is back', (s) => s.link === 'ok' && s.torque === false, 8000);
    assert.notEqual((await b.status()).activity, 'running');
    // Sent by the robot's next body as it opened (the lost one was closed with the run), or by the lost one had the link come back first.
    assert.match(b.serving.stderr(), /stop sent again as the link came back \(the last one had not reached the motors\): confirmed|torque off sent again as the link came back .*: the firmware reads torque off/);
  });
});
