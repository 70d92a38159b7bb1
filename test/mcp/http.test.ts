/**
 * serve-mcp over Streamable HTTP, in-process on 127.0.0.1 (a random port), with the SDK's own
 * HTTP client: the tools and a session over HTTP, a gate asked through elicitation on the tool
 * call's stream, the bearer token (required off loopback, or the server refuses to start in one
 * line; 401 without it or with another), and the Host check that keeps web pages off the robots.
 * Clients that leave without a DELETE (the SDK's close(), the Inspector CLI's one call and exit)
 * free their robot at once; one that opens no event stream frees it after the hold time.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { withLogs } from '../../src/log.js';
import { serveMcp, type ServeMcpOptions } from '../../src/mcp/serve.js';
import { childEnv } from '../helpers/cli.js';
import { journal } from '../helpers/journal.js';
import { writeDuck } from '../helpers/ducks.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';
import { isError, newClient, runIdIn, text, transcript, type ClientOptions } from './client.js';

const TOKEN = 'a-test-token-of-some-length-0123';

const CHILD = fileURLToPath(new URL('./one-call-child.ts', import.meta.url));

interface Running {
  readonly url: string;
  /** The messages of the info lines it logged so far. */
  readonly logs: string[];
  stop(): Promise<void>;
}

/** serveMcp over HTTP in this process, its logs kept; resolves once it listens (its line on stderr names the URL). */
async function serveHttp(home: string, http: NonNullable<ServeMcpOptions['http']>, extra: Partial<ServeMcpOptions> = {}): Promise<Running> {
  const { root, lines: logs } = journal();
  const stderr = new PassThrough();
  let said = '';
  const listening = new Promise<string>((resolve) =>
    stderr.setEncoding('utf8').on('data', (d: string) => {
      said += d;
      const url = /at (http:\/\/\S+\/mcp)/.exec(said)?.[1];
      if (url !== undefined) resolve(url);
    }),
  );
  const stop = new AbortController();
  const served = withLogs(root, () => serveMcp({ env: childEnv({ QUACKD_HOME: home }), stdin: Readable.from([]), stdout: new PassThrough(), stderr, http, noMemory: false, signal: stop.signal, ...extra }));
  const url = await Promise.race([listening, served.then(() => Promise.reject(new Error(`serve-mcp ended: ${said}`)))]);
  return {
    url,
    logs,
    stop: async () => {
      stop.abort(new Error('stopped by the test'));
      await served;
    },
  };
}

async function connect(url: string, token?: string, options: ClientOptions = {}) {
  const client = newClient(options);
  const headers: Record<string, string> = token !== undefined ? { Authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

/** A raw POST of an initialize request: what a client without the token (or a web page) would send. */
function rawInitialize(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return rawPost(url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }, headers);
}

/** One raw JSON-RPC POST, as a script of single requests sends it (it never opens the event stream). */
function rawPost(url: string, message: unknown, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const body = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

type McpClient = Awaited<ReturnType<typeof connect>>;

/** `next` walks on the robot at its first try, once the run `before` ended as `why`; then it lets the robot go. */
async function takesTheRobot(next: McpClient, home: string, before: string, why: string): Promise<void> {
  const mine = await next.callTool({ name: 'robot_verb', arguments: { verb: 'walk', args: { metres: 0.3 } } });
  assert.equal(isError(mine), false, text(mine));
  const end = transcript(home, before).find((l) => l.type === 'end');
  assert.deepEqual(end?.type === 'end' ? [end.outcome, end.reason] : [], ['interrupted', why]);
  await next.callTool({ name: 'robot_verb', arguments: { verb: 'declare_failure', args: { reason: 'done' } } });
}

describe('serve-mcp over HTTP on 127.0.0.1', () => {
  const home = tempDir('quackd-mcp-http-');
  const ducks = tempDir('quackd-mcp-http-ducks-');
  let server: Running;

  before(async () => {
    const path = writeDuck(ducks, 'careful', 'robot: microduck:sim2d\nverbs: [quack, walk]\nconfirm: [quack]\nbudgets: { steps: 4, llm_calls: 10, seconds: 120 }');
    server = await serveHttp(home, { host: '127.0.0.1', port: 0 }, { duck: path });
  });
  after(() => server.stop());

  it('serves the tools; a session over HTTP asks its gate through elicitation on the call\'s own stream', async () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const asked: string[] = [];
    const client = await connect(server.url, undefined, { elicit: (m) => (asked.push(m), { action: 'accept', content: { confirm: true } }) });
    try {
      const { tools } = await client.listTools();
      assert.equal(tools.length, 7);
      await client.callTool({ name: 'robot_remember', arguments: { text: 'the door sticks' } });
      const quack = await client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
      assert.equal(isError(quack), false, text(quack));
      assert.match(text(quack), /^step 1: quack — ok: quack!$/m);
      assert.deepEqual(asked, ['microduck:sim2d: 1 quack — confirm?']);
      const walk = await client.callTool({ name: 'robot_verb', arguments: { verb: 'walk', args: { metres: -5 } } });
      assert.equal(isError(walk), true);
      assert.match(text(walk), /^refused — walk: invalid arguments: metres: Too small/m);
      const done = await client.callTool({ name: 'robot_verb', arguments: { verb: 'declare_success', args: { reason: 'quacked' } } });
      assert.match(text(done), /^the session ended: success/m);
      const lines = transcript(home, runIdIn(text(quack)));
      assert.deepEqual(lines.filter((l) => l.type === 'gate').map((l) => (l.type === 'gate' ? [l.allowed, l.how] : [])), [[true, 'person']]);
      assert.deepEqual(lines.filter((l) => l.type === 'verb_result').map((l) => (l.type === 'verb_result' ? l.label : '')), ['quack']);
      const recall = await client.callTool({ name: 'robot_recall', arguments: { query: 'door' } });
      assert.match(text(recall), /"the door sticks"/);
    } finally {
      await client.close();
    }
  });

  it('a call sent beside a gated one is refused as busy, and the gate is still asked of the person on the gated call\'s stream', async () => {
    const asked: string[] = [];
    const client = await connect(server.url, undefined, { elicit: (m) => (asked.push(m), { action: 'accept', content: { confirm: true } }) });
    try {
      for (let round = 1; round <= 4; round++) {
        const [quack, walk] = await Promise.all([
          client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } }),
          client.callTool({ name: 'robot_verb', arguments: { verb: 'walk', args: { metres: 0.1 } } }),
        ]);
        const busy = [quack, walk].filter((r) => isError(r));
        assert.equal(busy.length, 1, `round ${round}: one of the two is refused: ${text(quack)} | ${text(walk)}`);
        assert.match(text(busy[0]), /one verb at a time: the last one is still under way/, `round ${round}`);
        // The bug: the refused call took the gate's question over, and the person was never asked.
        if (!isError(quack)) assert.match(text(quack), /^step 1: quack — ok: quack!$/m, `round ${round}`);
        await client.callTool({ name: 'robot_verb', arguments: { verb: 'declare_success', args: { reason: 'done' } } });
      }
      assert.ok(asked.every((m) => m === 'microduck:sim2d: 1 quack — confirm?'), asked.join(' | '));
    } finally {
      await client.close();
    }
  });

  it("a gate whose question the client fails to put is shut and recorded as unasked, never as the person's no", async () => {
    const client = await connect(server.url, undefined, { elicit: () => Promise.reject(new Error('the dialog crashed')) });
    try {
      const quack = await client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
      assert.equal(isError(quack), true, text(quack));
      assert.match(text(quack), /^denied — quack: the question could not be put to the person at this MCP client \(its elicitation failed\); nothing moved$/m);
      // Read once the session has ended: the transcript is written behind the answers, and whole once the run is over.
      await client.callTool({ name: 'robot_verb', arguments: { verb: 'declare_failure', args: { reason: 'no yes' } } });
      const lines = transcript(home, runIdIn(text(quack)));
      assert.deepEqual(lines.filter((l) => l.type === 'gate').map((l) => (l.type === 'gate' ? [l.allowed, l.how] : [])), [[false, 'unasked']]);
    } finally {
      await client.close();
    }
  });

  it("robot_observe while the session's first verb waits at its gate says so, not that the robot is busy with the session itself", async () => {
    let seen = '';
    const client: McpClient = await connect(server.url, undefined, {
      elicit: async () => {
        seen = text(await client.callTool({ name: 'robot_observe', arguments: {} }));
        return { action: 'accept', content: { confirm: true } };
      },
    });
    try {
      const quack = await client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
      assert.match(text(quack), /^step 1: quack — ok: quack!$/m);
      assert.equal(seen, "microduck:sim2d: this session's first verb is still under way; its answer says what the robot sees");
      assert.match(text(await client.callTool({ name: 'robot_observe', arguments: {} })), /^microduck:sim2d after the last verb of this session/);
      await client.callTool({ name: 'robot_verb', arguments: { verb: 'declare_success', args: { reason: 'done' } } });
    } finally {
      await client.close();
    }
  });

  it('keeps each MCP session\'s robot_verb session its own, and ends it when the client ends its MCP session', async () => {
    const first = await connect(server.url);
    const second = await connect(server.url);
    try {
      const started = await first.callTool({ name: 'robot_verb', arguments: { verb: 'walk', args: { metres: 0.3 } } });
      assert.equal(isError(started), false, text(started));
      const busy = await second.callTool({ name: 'robot_verb', arguments: { verb: 'walk', args: { metres: 0.3 } } });
      assert.equal(isError(busy), true);
      // The refusal names the holder (the first client's MCP session), since when, and how to free it.
      const holder = (first.transport as StreamableHTTPClientTransport).sessionId?.slice(0, 8) ?? '';
      assert.match(text(busy), new RegExp(`^microduck:sim2d is already running careful for mcp session ${holder} \\(quackd-test 0\\.0\\.1\\) since \\d\\d:\\d\\d:\\d\\d; one run at a time per robot \\('quackd stop microduck:sim2d' frees it\\)$`));
      // The first client says goodbye (DELETE): its session's run stops, and the robot is free.
      await (first.transport as StreamableHTTPClientTransport).terminateSession();
      await takesTheRobot(second, home, runIdIn(text(started)), 'stopped by the MCP client closing');
    } finally {
      await second.close();
      await first.close();
    }
  });

  it("frees the robot at once when a client leaves without a DELETE (the SDK's close()), and the journal says who ran it", async () => {
    const first = await connect(server.url);
    const started = await first.callTool({ name: 'robot_verb', arguments: { verb: 'walk', args: { metres: 0.3 } } });
    assert.equal(isError(started), false, text(started));
    const holder = (first.transport as StreamableHTTPClientTransport).sessionId?.slice(0, 8) ?? '';
    // The SDK's close() drops the client's streams and sends no DELETE.
    await first.close();
    const second = await connect(server.url);
    try {
      const runId = runIdIn(text(started));
      await takesTheRobot(second, home, runId, 'stopped by the MCP client leaving');
      const start = transcript(home, runId).find((l) => l.type === 'start');
      assert.equal(start?.type === 'start' ? start.by : undefined, `mcp session ${holder} (quackd-test 0.0.1)`);
      assert.ok(server.logs.includes(`run started: careful on microduck:sim2d by mcp session ${holder} (quackd-test 0.0.1)`), server.logs.join('\n'));
      assert.ok(server.logs.includes('run ended: careful on microduck:sim2d: interrupted — stopped by the MCP client leaving'), server.logs.join('\n'));
    } finally {
      await second.close();
    }
  });

  it("frees the robot at once when a client makes one call and exits (the MCP Inspector CLI's way)", async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, server.url, 'robot_verb', JSON.stringify({ verb: 'walk', args: { metres: 0.3 } })], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, err);
    const answer = JSON.parse(out) as unknown;
    assert.equal(isError(answer), false, text(answer));
    const next = await connect(server.url);
    try {
      await takesTheRobot(next, home, runIdIn(text(answer)), 'stopped by the MCP client leaving');
    } finally {
      await next.close();
    }
  });

  it('stops a robot_run under way when its client hangs up, and frees the robot', async () => {
    // A duck of the user's whose quack waits for a person, who never answers: the run holds the robot until the client goes.
    mkdirSync(join(home, 'ducks'), { recursive: true });
    writeDuck(join(home, 'ducks'), 'ask-first', 'robot: microduck:sim2d\nverbs: [quack]\nconfirm: [quack]\nbudgets: { steps: 3, llm_calls: 5, seconds: 120 }');
    let asked: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (asked = resolve));
    const gone = await connect(server.url, undefined, { elicit: () => (asked(), new Promise<never>(() => undefined)) });
    const running = gone.callTool({ name: 'robot_run', arguments: { duck: 'ask-first' } }).catch(() => undefined);
    await gate;
    const line = server.logs.find((l) => l.startsWith('run started: ask-first'));
    await gone.close();
    await running;
    const next = await connect(server.url);
    try {
      const mine = await next.callTool({ name: 'robot_verb', arguments: { verb: 'walk', args: { metres: 0.3 } } });
      assert.equal(isError(mine), false, text(mine));
      assert.match(line ?? '', /^run started: ask-first on microduck:sim2d by mcp session [0-9a-f]{8} \(quackd-test 0\.0\.1\)$/);
      assert.ok(server.logs.includes('run ended: ask-first on microduck:sim2d: interrupted — stopped by the MCP client leaving'), server.logs.join('\n'));
      await next.callTool({ name: 'robot_verb', arguments: { verb: 'declare_failure', args: { reason: 'done' } } });
    } finally {
      await next.close();
    }
  });

  it('answers a robot_run under way whose own client ends the session (DELETE): the call says the run stopped', async () => {
    mkdirSync(join(home, 'ducks'), { recursive: true });
    writeDuck(join(home, 'ducks'), 'ask-first', 'robot: microduck:sim2d\nverbs: [quack]\nconfirm: [quack]\nbudgets: { steps: 3, llm_calls: 5, seconds: 120 }');
    let asked: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (asked = resolve));
    const client = newClient({ elicit: () => (asked(), new Promise<never>(() => undefined)) });
    const transport = new StreamableHTTPClientTransport(new URL(server.url));
    await client.connect(transport);
    try {
      const running = client.callTool({ name: 'robot_run', arguments: { duck: 'ask-first' } });
      await gate;
      const t0 = performance.now();
      await transport.terminateSession();
      const answer = await running;
      assert.ok(performance.now() - t0 < 5000, 'answered when the session ended, not at the client\'s timeout');
      assert.match(text(answer), /interrupted — stopped by the MCP client closing/);
    } finally {
      await client.close();
    }
  });

  it('answers a request body over the limit with 413 and why, and goes on serving', async () => {
    const big = await rawPost(server.url, 'a'.repeat(2_000_000), {});
    assert.equal(big.status, 413, big.body);
    assert.match(big.body, /request body too large: over 1048576 bytes/);
    const next = await rawInitialize(server.url, {});
    assert.equal(next.status, 200, next.body);
  });

  it('answers a request addressed to another host with 403 (DNS rebinding), and one to another path with 404', async () => {
    const port = new URL(server.url).port;
    const foreign = await rawInitialize(server.url, { host: `robots.example:${port}` });
    assert.equal(foreign.status, 403);
    const wrongPath = await rawInitialize(server.url.replace('/mcp', '/other'), {});
    assert.equal(wrongPath.status, 404);
  });
});

describe('serve-mcp over HTTP: the bearer token', () => {
  const home = tempDir('quackd-mcp-token-');

  it('refuses to start off loopback without a token, in one line, before anything opens', async () => {
    const r = await quackd(['serve-mcp', '--http', '0.0.0.0:0'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^quackd: serve-mcp: --http 0\.0\.0\.0 is reachable from other machines, and nobody may drive the robots from there without a bearer token \(give --token-file FILE \(or QUACKD_MCP_TOKEN\), or bind 127\.0\.0\.1\)\n$/);
    assert.equal(existsSync(join(home, 'memory')), false, 'no store was opened');
  });

  it('takes --session-idle for HTTP alone, in seconds', async () => {
    const stdio = await quackd(['serve-mcp', '--session-idle', '60'], { env: { QUACKD_HOME: home } });
    assert.equal(stdio.code, 2);
    assert.match(stdio.stderr, /^quackd: serve-mcp: --session-idle is for --http; over stdio the session ends when the client closes stdin\n$/);
    const bad = await quackd(['serve-mcp', '--http', '--session-idle', 'soon'], { env: { QUACKD_HOME: home } });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^quackd: .*session-idle/);
  });

  it('refuses a token file others can read, and a token too short to guard anything', async () => {
    const file = join(home, 'token');
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o644 });
    const open = await quackd(['serve-mcp', '--http', '0.0.0.0:0', '--token-file', file], { env: { QUACKD_HOME: home } });
    assert.equal(open.code, 2);
    assert.match(open.stderr, /is open to other users \(mode 0644\); it must be 0600/);
    const short = await quackd(['serve-mcp', '--http', '0.0.0.0:0'], { env: { QUACKD_HOME: home, QUACKD_MCP_TOKEN: 'duck' } });
    assert.equal(short.code, 2);
    assert.match(short.stderr, /too short/);
  });

  it('with a token on 0.0.0.0, answers 401 without it or with another, and serves with it', async () => {
    const server = await serveHttp(home, { host: '0.0.0.0', port: 0, token: TOKEN });
    try {
      const url = server.url.replace('0.0.0.0', '127.0.0.1');
      const none = await rawInitialize(url, {});
      assert.equal(none.status, 401);
      assert.match(String(none.headers['www-authenticate']), /^Bearer/);
      assert.match(none.body, /a bearer token is required/);
      const wrong = await rawInitialize(url, { authorization: `Bearer ${TOKEN}x` });
      assert.equal(wrong.status, 401);
      const client = await connect(url, TOKEN);
      try {
        const list = await client.callTool({ name: 'robot_list', arguments: {} });
        assert.equal(text(list), 'microduck:sim2d · idle');
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });
});

describe('serve-mcp over HTTP: a session nobody closes', () => {
  const home = tempDir('quackd-mcp-idle-');
  const ducks = tempDir('quackd-mcp-idle-ducks-');
  let server: Running;

  before(async () => {
    const path = writeDuck(ducks, 'slow-gate', 'robot: microduck:sim2d\nverbs: [quack, walk]\nconfirm: [quack]\nbudgets: { steps: 6, llm_calls: 12, seconds: 120 }');
    server = await serveHttp(home, { host: '127.0.0.1', port: 0, idleS: 1.5, holdS: 0.3 }, { duck: path });
  });
  after(() => server.stop());

  it('lets go of its robot after the hold time when its client opens no event stream, and closes after the idle time', async () => {
    const accept = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await rawInitialize(server.url, {});
    const id = String(init.headers['mcp-session-id']);
    const headers = { ...accept, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' };
    await rawPost(server.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    const call = (n: number, verb: string, args: Record<string, unknown>) => rawPost(server.url, { jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'robot_verb', arguments: { verb, args } } }, headers);
    const started = await call(2, 'walk', { metres: 0.3 });
    assert.equal(started.status, 200, started.body);
    const runId = runIdIn(started.body);
    // Nothing is open now: the client is thinking, or gone. After the hold time its run stops.
    const deadline = Date.now() + 10_000;
    const ended = () => transcript(home, runId).find((l) => l.type === 'end');
    while (ended() === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const end = ended();
    assert.deepEqual(end?.type === 'end' ? [end.outcome, end.reason] : [], ['interrupted', 'stopped by the MCP client going quiet for 0.3 s']);
    // Its session lives on: the next call says how the last session ended, and starts a new one.
    const again = await call(3, 'walk', { metres: 0.3 });
    assert.equal(again.status, 200, again.body);
    assert.match(again.body, new RegExp(`the last session \\(transcript ${runId}\\) ended between calls: interrupted — stopped by the MCP client going quiet for 0\\.3 s`));
    // After the idle time the session itself is closed: a client coming back is told to start again.
    await new Promise((r) => setTimeout(r, 2500));
    const back = await call(4, 'walk', { metres: 0.3 });
    assert.equal(back.status, 404);
    assert.match(back.body, /no such MCP session/);
  });

  it('stays open while a call is under way, however long a person takes to answer its gate', async () => {
    const client = await connect(server.url, undefined, { elicit: async () => (await new Promise((r) => setTimeout(r, 1200)), { action: 'accept', content: { confirm: true } }) });
    try {
      const quack = await client.callTool({ name: 'robot_verb', arguments: { verb: 'quack' } });
      assert.equal(isError(quack), false, text(quack));
      assert.match(text(quack), /^step 1: quack — ok: quack!$/m);
      // Connected, the client's event stream stays open: the session is not idle between calls.
      await new Promise((r) => setTimeout(r, 800));
      const done = await client.callTool({ name: 'robot_verb', arguments: { verb: 'declare_success', args: { reason: 'quacked' } } });
      assert.match(text(done), /^the session ended: success/m);
    } finally {
      await client.close();
    }
  });
});
