/**
 * Which robot a call means: with a fleet of several a call must name one (and is refused in one
 * line otherwise), `--robot` narrows the server to one, and what serve-mcp is started with (a
 * robot, a duck) is checked before it serves, each mistake one line and exit 2.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { writeDuck } from '../helpers/ducks.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';
import { isError, serveMcpStdio, text, type Served } from './client.js';

const FLEET = 'robots:\n  den: { body: microduck:sim2d }\n  attic: { body: microduck:sim2d }\n';

describe('serve-mcp with a fleet of two', () => {
  const home = tempDir('quackd-mcp-fleet-');
  const open: Served[] = [];
  before(() => writeFileSync(join(home, 'config.yaml'), FLEET));
  after(() => Promise.all(open.map((s) => s.close())));

  it('lists both, and a call that names neither is refused in one line', async () => {
    const served = await serveMcpStdio([], { QUACKD_HOME: home });
    open.push(served);
    assert.equal(text(await served.client.callTool({ name: 'robot_list', arguments: {} })), 'den · microduck:sim2d · idle\nattic · microduck:sim2d · idle');
    const unnamed = await served.client.callTool({ name: 'robot_observe', arguments: {} });
    assert.equal(isError(unnamed), true);
    assert.equal(text(unnamed), 'name a robot: this server looks after den, attic (robot_list lists them)');
    const named = await served.client.callTool({ name: 'robot_observe', arguments: { robot: 'attic' } });
    assert.match(text(named), /^attic \(microduck:sim2d\) now:/);
  });

  it('--robot narrows the server to one robot, which calls may then leave out', async () => {
    const served = await serveMcpStdio(['--robot', 'den'], { QUACKD_HOME: home });
    open.push(served);
    assert.equal(text(await served.client.callTool({ name: 'robot_list', arguments: {} })), 'den · microduck:sim2d · idle');
    const quack = await served.client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
    assert.match(text(quack), /^session started on den \(microduck:sim2d\)/m);
    const other = await served.client.callTool({ name: 'robot_recall', arguments: { robot: 'attic' } });
    assert.equal(isError(other), true);
    assert.equal(text(other), 'this server looks after den only (serve-mcp --robot den)');
  });

  it('--robot KEY that two robots share is refused in one line naming both', async () => {
    const r = await quackd(['serve-mcp', '--robot', 'microduck:sim2d'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^quackd: serve-mcp: --robot: microduck:sim2d is the body of 2 robots of the fleet \(den, attic\): name one of them/);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  });
});

describe('serve-mcp with no fleet, asked about another body', () => {
  const home = tempDir('quackd-mcp-nofleet-');
  const open: Served[] = [];
  after(() => Promise.all(open.map((s) => s.close())));

  it('a read-only call naming another body key leaves the server looking after the one robot it had', async () => {
    const served = await serveMcpStdio([], { QUACKD_HOME: home });
    open.push(served);
    const seen = await served.client.callTool({ name: 'robot_observe', arguments: { robot: 'reachy-mini:mock' } });
    assert.equal(isError(seen), false, text(seen));
    const recalled = await served.client.callTool({ name: 'robot_recall', arguments: { robot: 'microduck:mujoco', query: 'ball' } });
    assert.equal(isError(recalled), false, text(recalled));
    assert.equal(text(await served.client.callTool({ name: 'robot_list', arguments: {} })), 'microduck:sim2d · idle');
    const quack = await served.client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
    assert.match(text(quack), /^session started on microduck:sim2d/m);
  });
});

describe('serve-mcp --robot KEY with one robot of that body', () => {
  const home = tempDir('quackd-mcp-key-');
  const open: Served[] = [];
  before(() => writeFileSync(join(home, 'config.yaml'), 'robots:\n  den: { body: microduck:sim2d }\n'));
  after(() => Promise.all(open.map((s) => s.close())));

  it('says on stderr which robot the key means, as its sessions do', async () => {
    const served = await serveMcpStdio(['--robot', 'microduck:sim2d'], { QUACKD_HOME: home });
    open.push(served);
    const quack = await served.client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
    assert.match(text(quack), /^session started on den \(microduck:sim2d\)/m);
    assert.match(served.stderr(), /^quackd serve-mcp: looking after den \(microduck:sim2d\) only$/m);
  });
});

describe('serve-mcp start-up mistakes', () => {
  const home = tempDir('quackd-mcp-startup-');
  const ducks = tempDir('quackd-mcp-startup-ducks-');

  it('refuses an unknown robot, a duck the body cannot run, a malformed duck and contradicting flags, one line each', async () => {
    const kicker = writeDuck(ducks, 'kicker', 'robot: microduck:sim2d\nverbs: [kick]\nsuccess_when: walked_m >= 0.5');
    const broken = join(ducks, 'broken.duck');
    writeFileSync(broken, '---\nverbs: [quack\n---\n# x\n\n1. quack\n');
    const cases: [string[], RegExp][] = [
      [['--robot', 'microduck:sim2e'], /^quackd: serve-mcp: --robot: unknown robot "microduck:sim2e" \(did you mean "microduck:sim2d"\?\)/],
      [['--duck', kicker], /kicker\.duck:4: success_when: microduck:sim2d does not measure "walked_m"/],
      [['--duck', broken], /broken\.duck:\d+: front matter is not valid YAML/],
      [['--duck', 'no-such-duck'], /no duck named "no-such-duck"/],
      [['--no-memory', '--memory-dir', home], /--memory-dir and --no-memory contradict each other/],
      [['--token', 'a-token-long-enough-to-use'], /a bearer token is for --http/],
      [['--http', 'nowhere:port'], /--http "nowhere:port" is not ADDR:PORT/],
      [['extra'], /takes no arguments/],
    ];
    for (const [args, why] of cases) {
      const r = await quackd(['serve-mcp', ...args], { env: { QUACKD_HOME: home } });
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '', 'stdout is the protocol\'s alone');
      assert.match(r.stderr, why, args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    }
  });

  it('ends at once, exit 0, when stdin is already closed: the client is gone', async () => {
    const r = await quackd(['serve-mcp'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, '');
  });
});
