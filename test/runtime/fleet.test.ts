/** The fleet in config.yaml: validated by each backend's schema on its own lines, named by --robot. */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfigFile } from '../../src/config/file.js';
import { Fleet } from '../../src/runtime/fleet.js';
import { childEnv, runCli } from '../helpers/cli.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';

function home(config: string): string {
  const dir = tempDir('quackd-fleet-');
  writeFileSync(join(dir, 'config.yaml'), config);
  return dir;
}

describe('robots: in config.yaml', () => {
  it('reads named robots with their settings', async () => {
    const h = home('robots:\n  bench:\n    body: microduck:jsonrpc\n    port: /dev/ttyACM0\n    baud: 115200\n  den:\n    body: microduck:sim2d\n');
    const { config } = await loadConfigFile({ QUACKD_HOME: h });
    const fleet = new Fleet(config.robots);
    assert.deepEqual(fleet.list().map((r) => [r.name, r.key]), [['bench', 'microduck:jsonrpc'], ['den', 'microduck:sim2d']]);
    assert.deepEqual(fleet.resolve('bench').settings, { port: '/dev/ttyACM0', baud: 115200, heading_hold: { gain: 3, max_vyaw: 1 } });
  });

  it('refuses an unknown body, a setting the body does not take and a bad value, each on its line', async () => {
    const h = home('robots:\n  bench:\n    body: microduck:jsonrpcc\n  den:\n    body: microduck:sim2d\n    port: x\n  hall:\n    body: microduck:jsonrpc\n    baud: fast\n');
    await assert.rejects(loadConfigFile({ QUACKD_HOME: h }), (err: Error) => {
      assert.match(err.message, /config\.yaml:3: robots\.bench\.body: unknown body "microduck:jsonrpcc" \(did you mean "microduck:jsonrpc"\?\)/);
      assert.match(err.message, /config\.yaml:6: robots\.den\.port: microduck:sim2d takes no setting "port"/);
      assert.match(err.message, /config\.yaml:9: robots\.hall\.baud: /);
      return true;
    });
  });

  it('config check names a misspelt key on its line with the key it was meant to be, in every section and a robot\'s body', async () => {
    const cases: [string, RegExp][] = [
      ['robots:\n  sim:\n    bodi: microduck:sim2d\n', /config\.yaml:3: robots\.sim: unknown key "bodi" \(did you mean "body"\?\)$/],
      ['robots:\n  sim:\n    size: 3\n', /config\.yaml:2: robots\.sim\.body: missing$/],
      ['robtos:\n  sim:\n    body: microduck:sim2d\n', /config\.yaml:1: \(top level\): unknown key "robtos" \(did you mean "robots"\?\)$/],
      ['pilot:\n  timout_s: 10\n', /config\.yaml:2: pilot: unknown key "timout_s" \(did you mean "timeout_s"\?\)$/],
      ['mqtt:\n  tls:\n    certt: x\n', /config\.yaml:3: mqtt\.tls: unknown key "certt" \(did you mean "cert"\?\)$/],
      ['robots:\n  duck:\n    body: microduck:jsonrpc\n    prot: /dev/ttyACM0\n', /config\.yaml:4: robots\.duck\.prot: microduck:jsonrpc takes no setting "prot" \(did you mean "port"\?\)$/],
    ];
    for (const [config, line] of cases) {
      const r = await runCli(['config', 'check'], { env: childEnv({ QUACKD_HOME: home(config) }) });
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(r.stderr.trim(), line);
    }
  });

  it('refuses a robot name outside the rule with the rule itself, on its line, as config check shows it', async () => {
    for (const name of ['"kitchen duck"', 'Kitchen', 'd'.repeat(33), '"canard-é"', '"a/b"']) {
      const h = home(`robots:\n  den: { body: microduck:sim2d }\n  ${name}: { body: microduck:sim2d }\n`);
      const r = await quackd(['config', 'check'], { env: { QUACKD_HOME: h } });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /config\.yaml:3: robots\..+: a robot name is a lower case letter, then lower case letters, digits, - or _, at most 32 in all \(e\.g\. kitchen-duck\)$/m, name);
    }
  });

  it('quackd run --robot takes a fleet name, and --port fills the same schema', async () => {
    const h = home('robots:\n  den:\n    body: microduck:sim2d\n  bench:\n    body: microduck:jsonrpc\n');
    const ok = await quackd(['run', 'hello-world', '--robot', 'den'], { env: { QUACKD_HOME: h } });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^hello-world on den \(microduck:sim2d\) · pilot fake/m);
    const noPort = await quackd(['run', 'hello-world', '--robot', 'bench'], { env: { QUACKD_HOME: h } });
    assert.equal(noPort.code, 2);
    assert.match(noPort.stderr, /run: bench needs --port/);
    const typo = await quackd(['run', 'hello-world', '--robot', 'dne'], { env: { QUACKD_HOME: h } });
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /unknown body "dne" \(did you mean "den"\?\)/);
    const check = await quackd(['config', 'check'], { env: { QUACKD_HOME: h } });
    assert.match(check.stdout, /robots\n\s+den\s+microduck:sim2d\n\s+bench\s+microduck:jsonrpc\s+needs port: give --port to a run/);
  });

  it('config check shows a robot\'s policy slots as slot=folder, each from where it came', async () => {
    const h = home('robots:\n  twin:\n    body: microduck:mujoco\n    policies:\n      walk: /srv/walking\n      kick_left: /srv/kick\n');
    const check = await quackd(['config', 'check'], { env: { QUACKD_HOME: h } });
    assert.equal(check.code, 0, check.stderr);
    assert.match(check.stdout, /twin\s+microduck:mujoco\s+policies walk=\/srv\/walking kick_left=\/srv\/kick \(file\), heading_hold gain=3 max_vyaw=1 \(default\), pace lockstep \(default\)/);
  });

  it('config check shows how straight walks hold their heading: on for the twin and the bridge, off on a servo bus unless set', async () => {
    const h = home('robots:\n  twin: { body: microduck:mujoco }\n  bench: { body: microduck:jsonrpc, port: /dev/ttyACM0 }\n  odm: { body: microduck:feetech, port: /dev/ttyUSB0 }\n  xl: { body: microduck:dynamixel, port: /dev/ttyUSB1, heading_hold: { gain: 1.5, max_vyaw: 0.5 } }\n  calm: { body: microduck:jsonrpc, port: /dev/ttyACM1, heading_hold: false }\n');
    const check = await quackd(['config', 'check', '--json'], { env: { QUACKD_HOME: h } });
    assert.equal(check.code, 0, check.stderr);
    const robots = (JSON.parse(check.stdout) as { robots: { name: string; settings: Record<string, { value: unknown; from: string }> }[] }).robots;
    const hold = Object.fromEntries(robots.map((r) => [r.name, r.settings['heading_hold']]));
    const on = { gain: 3, max_vyaw: 1 };
    assert.deepEqual(hold, {
      twin: { value: on, from: 'default' },
      bench: { value: on, from: 'default' },
      odm: { value: false, from: 'default' },
      xl: { value: { gain: 1.5, max_vyaw: 0.5 }, from: 'file' },
      calm: { value: false, from: 'file' },
    });
  });

  it('--robot KEY that means the one robot of the fleet with that body says so in the header; a bare key stays the key', async () => {
    const h = home('robots:\n  den:\n    body: microduck:sim2d\n');
    const byKey = await quackd(['run', 'hello-world', '--robot', 'microduck:sim2d'], { env: { QUACKD_HOME: h } });
    assert.equal(byKey.code, 0, byKey.stderr);
    assert.match(byKey.stdout, /^hello-world on den \(microduck:sim2d\) · pilot fake · budget /m);
    // The duck's own `robot:` line (hello-world's is the key) means den too.
    assert.match((await quackd(['run', 'hello-world'], { env: { QUACKD_HOME: h } })).stdout, /^hello-world on den \(microduck:sim2d\) · /m);
    const bare = await quackd(['run', 'hello-world', '--robot', 'microduck:sim2d'], { env: { QUACKD_HOME: tempDir('quackd-fleet-') } });
    assert.match(bare.stdout, /^hello-world on microduck:sim2d · pilot fake/m);
  });

  it('a key two robots of the fleet have is a one-line error naming both, for run and health alike', async () => {
    const h = home('robots:\n  den:\n    body: microduck:sim2d\n  hall:\n    body: microduck:sim2d\n');
    const run = await quackd(['run', 'hello-world', '--robot', 'microduck:sim2d'], { env: { QUACKD_HOME: h } });
    assert.equal(run.code, 2, run.stdout);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, 'quackd: microduck:sim2d is the body of 2 robots of the fleet (den, hall): name one of them (e.g. --robot den)\n');
    // Without --robot the duck's `robot: microduck:sim2d` is as ambiguous, and the error says where it came from.
    const implicit = await quackd(['run', 'hello-world'], { env: { QUACKD_HOME: h } });
    assert.equal(implicit.code, 2);
    assert.match(implicit.stderr, /^quackd: starter:hello-world:\d+: robot: microduck:sim2d is the body of 2 robots of the fleet \(den, hall\)/);
    const health = await quackd(['health', '--robot', 'microduck:sim2d'], { env: { QUACKD_HOME: h } });
    assert.equal(health.code, 2);
    assert.equal(health.stderr, 'quackd: --robot: microduck:sim2d is the body of 2 robots of the fleet (den, hall): name one of them (e.g. --robot den)\n');
    // A name is never ambiguous.
    assert.match((await quackd(['run', 'hello-world', '--robot', 'hall'], { env: { QUACKD_HOME: h } })).stdout, /^hello-world on hall \(microduck:sim2d\) · /m);
  });
});
