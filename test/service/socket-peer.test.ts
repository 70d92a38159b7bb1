/**
 * The control socket opens only what the asker may read, and knows who asks from the kernel
 * (SO_PEERCRED), not from the client's words. A second OS user in the socket's group (made by the
 * test when it runs as root, as CI does) names a root-only duck file, a missing one and its own;
 * it says it is root. The service is a real one, in-process, on its real socket.
 */
import assert from 'node:assert/strict';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import { duckText } from '../helpers/ducks.js';
import { noSecondUser, secondUser, type OsUser } from '../helpers/second-user.js';

// Sends one request line, prints each answer line until `started` or `error`, then hangs up.
const CLIENT = `
const socket = require('node:net').createConnection(process.argv[1]);
let text = '';
socket.setEncoding('utf8');
socket.on('connect', () => socket.write(process.argv[2] + '\\n'));
socket.on('data', (d) => {
  text += d;
  for (const line of text.split('\\n').slice(0, -1)) {
    const type = JSON.parse(line).type;
    if (type === 'started' || type === 'error') { console.log(line); socket.destroy(); process.exit(0); }
  }
});
socket.on('error', (e) => { console.log(JSON.stringify({ type: 'error', message: 'socket: ' + e.message })); process.exit(0); });
`;

const SECRET = 'hunter2pass';
const GROUP = `qdg${process.pid}`;

describe('the control socket and a second user', { skip: noSecondUser() }, () => {
  let home: string;
  let serving: Serving;
  let user: OsUser;
  let socketPath: string;
  const ask = async (request: Record<string, unknown>): Promise<{ type: string; message?: string; run?: { transcriptPath: string } }> => {
    const r = await user.node(['-e', CLIENT, socketPath, JSON.stringify(request)]);
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout.trim()) as { type: string; message?: string };
  };

  before(async () => {
    user = secondUser([GROUP]);
    home = mkdtempSync(join(tmpdir(), 'quackd-peer-'));
    // The second user reaches the socket through the home, and nothing else in it.
    chmodSync(home, 0o711);
    writeFileSync(join(home, 'config.yaml'), `robots:\n  den: { body: microduck:sim2d }\nservice:\n  socket_group: ${GROUP}\n`);
    mkdirSync(join(home, 'root-only'), { mode: 0o700 });
    writeFileSync(join(home, 'root-only', 'secret.duck'), duckText(`verbs: [${SECRET}]`));
    writeFileSync(join(home, 'mine.duck'), duckText('robot: microduck:sim2d\nverbs: [quack]\nbudgets: { steps: 2, llm_calls: 3, seconds: 30 }'), { mode: 0o600 });
    chownSync(join(home, 'mine.duck'), user.uid, user.gid);
    writeFileSync(join(home, 'root-file.duck'), duckText(`verbs: [${SECRET}]`), { mode: 0o600 });
    serving = await startService({ env: { QUACKD_HOME: home }, pilot: () => Promise.resolve(createFakeProvider()) });
    socketPath = join(home, 'quackd.sock');
  });
  after(async () => {
    await serving?.stop('the test');
    user?.remove();
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  it('a root-only file, a file in a root-only folder and a missing file get the same refusal, with nothing of their content', async () => {
    const answers = [];
    for (const path of [join(home, 'root-only', 'secret.duck'), join(home, 'root-file.duck'), join(home, 'root-only', 'nothing-here.duck'), join(home, 'nothing-here.duck')]) {
      const reply = await ask({ op: 'run', robot: 'den', duck: path });
      assert.equal(reply.type, 'error', JSON.stringify(reply));
      assert.ok(!JSON.stringify(reply).includes(SECRET), JSON.stringify(reply));
      answers.push((reply.message ?? '').replace(path, '<path>'));
    }
    assert.equal(new Set(answers).size, 1, answers.join('\n'));
    assert.match(answers[0] ?? '', /^<path>: no duck you can read there/);
  });

  it("its own file runs, and the run is recorded as the kernel's user, whatever the client says", async () => {
    const reply = await ask({ op: 'run', robot: 'den', duck: join(home, 'mine.duck'), by: { door: 'cli', who: 'user root (uid 0)' } });
    assert.equal(reply.type, 'started', JSON.stringify(reply));
    const start = JSON.parse(readFileSync(reply.run?.transcriptPath ?? '', 'utf8').split('\n')[0] ?? '') as { by?: string };
    assert.equal(start.by, `cli user ${user.name} (uid ${user.uid})`);
  });

  it('a relative path is refused in one line; a name still finds a starter', async () => {
    assert.match((await ask({ op: 'run', robot: 'den', duck: 'root-only/secret.duck' })).message ?? '', /a duck path on the control socket is absolute/);
    assert.equal((await ask({ op: 'run', robot: 'den', duck: 'hello-world' })).type, 'started');
  });
});
