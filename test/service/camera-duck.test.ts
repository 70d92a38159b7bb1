/**
 * A real duck's camera is the robot's setting, and every door takes it into account as `quackd run`
 * does: through a running `quackd serve` (its control socket) and serve-mcp through it, a
 * microduck:jsonrpc with `camera:` is offered and accepts search_scan (find-and-kick), one without
 * is refused in one line before anything opens. Neither robot's port exists: nothing moves.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import { serveMcpStdio, type Served } from '../mcp/client.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';

const FLEET = [
  'robots:',
  '  eyes: { body: microduck:jsonrpc, port: /dev/quackd-test-no-such-port-eyes, camera: { device: /dev/video9 } }',
  '  blind: { body: microduck:jsonrpc, port: /dev/quackd-test-no-such-port-blind }',
  '',
].join('\n');
const NO_CAMERA = /search_scan needs a camera: setting \(the bridge carries no camera\) on microduck:jsonrpc/;

describe('a jsonrpc duck with and without a camera, through quackd serve', () => {
  const home = tempDir('quackd-camera-duck-');
  let serving: Serving;
  const open: Served[] = [];

  before(async () => {
    writeFileSync(join(home, 'config.yaml'), FLEET);
    serving = await startService({ env: { QUACKD_HOME: home }, pilot: () => Promise.resolve(createFakeProvider()) });
  });
  after(async () => {
    await Promise.all(open.map((s) => s.close()));
    await serving?.stop('the test');
  });

  it('quackd run over the socket: refused on the blind duck in one line, started on the one with eyes (and failed on its missing port)', async () => {
    const blind = await quackd(['run', 'find-and-kick', '--robot', 'blind'], { env: { QUACKD_HOME: home } });
    assert.equal(blind.code, 2, blind.stderr);
    assert.match(blind.stderr, NO_CAMERA);
    assert.equal(blind.stderr.trim().split('\n').length, 1, blind.stderr);
    // The duck with eyes passes the check; what stops it is its port, which is not there.
    const eyes = await quackd(['run', 'find-and-kick', '--robot', 'eyes'], { env: { QUACKD_HOME: home } });
    assert.doesNotMatch(eyes.stderr, /camera/, eyes.stderr);
    assert.match(eyes.stdout, /^find-and-kick on eyes \(microduck:jsonrpc\)/m, eyes.stdout);
    assert.match(eyes.stdout, /FAIL error — serial port \/dev\/quackd-test-no-such-port-eyes not found/, eyes.stdout);
  });

  it('quackd do search_scan over the socket: refused on the blind duck in one line, started on the one with eyes', async () => {
    const blind = await quackd(['do', 'search_scan', '--robot', 'blind'], { env: { QUACKD_HOME: home } });
    assert.equal(blind.code, 2, blind.stderr);
    assert.match(blind.stderr, NO_CAMERA);
    assert.equal(blind.stderr.trim().split('\n').length, 1, blind.stderr);
    const eyes = await quackd(['do', 'search_scan', '--robot', 'eyes'], { env: { QUACKD_HOME: home } });
    assert.doesNotMatch(eyes.stderr, /camera/, eyes.stderr);
    assert.match(eyes.stdout, /serial port \/dev\/quackd-test-no-such-port-eyes not found/, eyes.stdout);
  });

  it('the service offers find-and-kick to the duck with eyes only (its dashboard list)', () => {
    assert.ok(serving.service.ducks('eyes').includes('find-and-kick'), serving.service.ducks('eyes').join(', '));
    assert.ok(!serving.service.ducks('blind').includes('find-and-kick'), serving.service.ducks('blind').join(', '));
  });

  it('serve-mcp through it: search_scan offered to the duck with eyes, its duck refused in one line on the blind one', async () => {
    const eyes = await serveMcpStdio(['--robot', 'eyes', '--duck', 'find-and-kick'], { QUACKD_HOME: home });
    open.push(eyes);
    const tool = (await eyes.client.listTools()).tools.find((t) => t.name === 'robot_verb');
    assert.match(tool?.description ?? '', /search_scan: /);
    const plain = await serveMcpStdio(['--robot', 'eyes'], { QUACKD_HOME: home });
    open.push(plain);
    assert.match((await plain.client.listTools()).tools.find((t) => t.name === 'robot_verb')?.description ?? '', /search_scan: /, 'the built-in duck offers it too');
    const blind = await quackd(['serve-mcp', '--robot', 'blind', '--duck', 'find-and-kick'], { env: { QUACKD_HOME: home } });
    assert.equal(blind.code, 2, blind.stderr);
    assert.match(blind.stderr, NO_CAMERA);
    assert.equal(blind.stderr.trim().split('\n').length, 1, blind.stderr);
  });
});
