/**
 * `quackd serve --foxglove`, spawned: a client that sends a frame the server refuses (past its
 * 64 KiB bound, or text that is not UTF-8) is closed with the protocol's code and one log line; the
 * service keeps serving: `quackd status` answers, and a client that was already watching stays
 * connected and receives the log of a run started afterwards.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { SUBPROTOCOLS } from '../../src/foxglove/live-server.js';
import { runCli } from '../helpers/cli.js';
import { watch } from '../helpers/foxglove-watch.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';
import { waitFor } from '../helpers/pty-pair.js';

/** The close code the server answers `data` with, sent as one text frame by an older-protocol client. */
function closeCodeFor(url: string, data: string | Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, [SUBPROTOCOLS[1]]);
    // ws sends a Buffer as a text frame as it is, unchecked: how a client with broken UTF-8 does.
    ws.on('open', () => ws.send(data, { binary: false }));
    ws.on('close', (code) => resolve(code));
    ws.on('error', reject);
  });
}

describe('quackd serve --foxglove, a client that sends what the server refuses', () => {
  it('is closed, one line; the service and the other clients go on', async () => {
    const home = tempDir('quackd-foxglove-bad-');
    const s = await serve(home, 'robots:\n  den: { body: microduck:sim2d }\nmqtt: false\nfoxglove: { listen: "127.0.0.1:0" }\n');
    const live = s.stderr().split('\n').map((l) => /"url":"(ws:[^"]+)"/.exec(l)?.[1]).find((u) => u !== undefined);
    assert.ok(live !== undefined, s.stderr());

    const watcher = await watch(live, SUBPROTOCOLS[0]);
    watcher.subscribe('/log');
    assert.equal(await closeCodeFor(live, 'x'.repeat(70_000)), 1009);
    assert.equal(await closeCodeFor(live, Buffer.from([0x7b, 0xc3, 0x28, 0x7d])), 1007);

    const status = await runCli(['status'], { env: { QUACKD_HOME: home } });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /foxglove\s+ws:\/\/127\.0\.0\.1:\d+ · 1 client · 0 dropped/);
    const run = await runCli(['run', 'hello-world'], { env: { QUACKD_HOME: home } });
    assert.equal(run.code, 0, run.stderr);
    await waitFor('the run’s log lines at the watching client', () => (watcher.got.get('/log') as { name: string }[] | undefined)?.some((l) => l.name === 'end') === true, 10_000);
    assert.equal(watcher.ws.readyState, WebSocket.OPEN);
    watcher.close();

    const refused = s.stderr().split('\n').filter((l) => l.includes('Foxglove client'));
    assert.equal(refused.length, 2, s.stderr());
    assert.match(refused[0] ?? '', /closed: Max payload size exceeded/);
    assert.match(refused[1] ?? '', /closed: .*invalid UTF-8 sequence/i);
    s.child.kill('SIGTERM');
    assert.equal((await s.exited).code, 0, s.stderr());
  });
});
