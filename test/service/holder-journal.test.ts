/**
 * Who holds a robot, and what the journal says, through the front doors as people use them: the
 * service in-process (sim2d robots, the fake pilot, the embedded MQTT broker) with its log lines
 * captured; runs from MQTT and from the CLI over the control socket. A busy robot's refusal names
 * the holder (an MQTT client id, a CLI user), since when, and how to free it; the journal has one
 * line for each run started (by whom) and ended, each gate asked and answered (by whom), and each
 * emergency stop (from where).
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { withLogs } from '../../src/log.js';
import { mqttServiceDoor } from '../../src/mqtt/service-door.js';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import { byText, cliUser } from '../../src/runtime/holder.js';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import { openService } from '../../src/service/socket/client.js';
import type { Reply } from '../../src/service/socket/protocol.js';
import { readTranscript } from '../../src/transcript/reader.js';
import { writeDuck } from '../helpers/ducks.js';
import { journal } from '../helpers/journal.js';
import { freePort } from '../helpers/mosquitto.js';
import { watch, type Login, type Received } from '../helpers/mqtt-watch.js';
import { readCredentials } from '../../src/mqtt/credentials.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SINCE = '\\d\\d:\\d\\d:\\d\\d';
const json = (m: Received): Record<string, unknown> => JSON.parse(m.payload) as Record<string, unknown>;

describe('who holds a robot, and the journal, through MQTT and the CLI', () => {
  const home = tempDir('quackd-holder-');
  /** Home Assistant's login, from the credentials the service made at its start. */
  const ha = (): Login => ({ username: 'ha', password: readCredentials(home)?.get('ha') ?? '' });
  const env = { QUACKD_HOME: home };
  const { root, lines: logs } = journal();
  const me = byText(cliUser());
  let serving: Serving;
  let url: string;

  before(async () => {
    const port = await freePort();
    url = `mqtt://127.0.0.1:${port}`;
    writeFileSync(join(home, 'config.yaml'), `robots:\n  den: { body: microduck:sim2d }\n  hall: { body: microduck:sim2d }\nmqtt:\n  port: ${port}\n  homeassistant: false\n  users:\n    ha: { may: [command, confirm] }\n`);
    mkdirSync(join(home, 'ducks'));
    // quack only with a person's yes: the run holds its robot at the gate for as long as the test needs.
    writeDuck(join(home, 'ducks'), 'careful-hello', 'robot: microduck:sim2d\nverbs: [quack]\nconfirm: [quack]\nbudgets: { steps: 3, llm_calls: 5, seconds: 60 }');
    serving = await withLogs(root, () =>
      startService({ env, pilot: () => Promise.resolve(createFakeProvider()), doors: (_service, config) => [mqttServiceDoor(config.mqtt, home, { dataDir: home }) ?? assert.fail('mqtt is off')] }),
    );
  });
  after(() => serving?.stop('the test'));

  /** Waits until the robot's run has a gate waiting. */
  async function gateOn(robot: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (serving.service.status(robot).gate === undefined) {
      if (Date.now() > deadline) throw new Error(`no gate on ${robot}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('a run from MQTT holds its robot for that client: the CLI is refused in words that name it, and a person answers its gate', async () => {
    const dashboard = await watch(url, ['quackd/hall/#'], ha());
    const client = dashboard.client.options.clientId ?? '';
    const started = await dashboard.ask('quackd/hall/set', { run: 'careful-hello' }, 'quackd/hall/set/response');
    assert.equal(started['status'], 'ok', JSON.stringify(started));
    await gateOn('hall');
    const refused = await quackd(['run', 'hello-world', '--robot', 'hall'], { env });
    assert.equal(refused.code, 3);
    assert.match(refused.stderr, new RegExp(`^quackd: hall is already running careful-hello for mqtt user ha · client ${escape(client)} since ${SINCE}; one run at a time per robot \\('quackd stop hall' frees it\\)\\n$`));
    const confirmed = await quackd(['confirm', 'hall', 'yes'], { env });
    assert.equal(confirmed.code, 0, confirmed.stderr);
    const ended = json(await dashboard.waitFor((m) => m.topic === 'quackd/hall/event' && json(m)['type'] === 'run_ended', 'run_ended'));
    assert.equal((ended['outcome'] as { status: string }).status, 'success');
    const runId = String(ended['runId']);
    const lines = readTranscript(join(home, 'transcripts', `${runId}.jsonl`)).lines;
    const start = lines.find((l) => l.type === 'start');
    assert.equal(start?.type === 'start' ? start.by : undefined, `mqtt user ha · client ${client}`);
    const gate = lines.find((l) => l.type === 'gate');
    assert.deepEqual(gate?.type === 'gate' ? [gate.allowed, gate.by] : [], [true, me]);

    assert.ok(logs.includes(`run started: careful-hello on hall by mqtt user ha · client ${client}`), logs.join('\n'));
    assert.ok(logs.includes('gate asked: hall: quack — confirm?'), logs.join('\n'));
    assert.ok(logs.includes(`gate answered: hall: quack — yes by ${me}`), logs.join('\n'));
    assert.ok(
      logs.some((l) => /^run ended: careful-hello on hall: success — /.test(l)),
      logs.join('\n'),
    );
  });

  it("a run from the CLI holds its robot for the CLI's user: MQTT is refused in words that name them, and stops it", async () => {
    let gate: (() => void) | undefined;
    const asked = new Promise<void>((resolve) => (gate = resolve));
    let end: Extract<Reply, { type: 'end' }> | undefined;
    // As `quackd run careful-hello --robot den` on a terminal sends it.
    const connection = await openService(env, { op: 'run', robot: 'den', duck: 'careful-hello', gates: 'ask', by: cliUser() }, (reply) => {
      if (reply.type === 'gate') gate?.();
      if (reply.type === 'end') end = reply;
    });
    assert.ok(connection !== undefined);
    await asked;
    const dashboard = await watch(url, ['quackd/den/#'], ha());
    const client = dashboard.client.options.clientId ?? '';
    const refused = await dashboard.ask('quackd/den/set', { run: 'hello-world' }, 'quackd/den/set/response');
    assert.equal(refused['status'], 'error');
    assert.match(String(refused['error']), new RegExp(`^den is already running careful-hello for ${escape(me)} since ${SINCE}; one run at a time per robot; 'quackd stop den' frees it$`));
    const stopped = await dashboard.ask('quackd/den/set', { stop: true }, 'quackd/den/set/response');
    assert.equal(stopped['status'], 'ok', JSON.stringify(stopped));
    await connection.closed;
    assert.deepEqual(end?.report.outcome, { status: 'interrupted', reason: 'stopped by an emergency stop' });
    // Free again: the CLI's own run goes, and its own stop is said as its user's.
    const run = await quackd(['run', 'hello-world', '--robot', 'den'], { env });
    assert.equal(run.code, 0, run.stderr);
    const stop = await quackd(['stop', 'den'], { env });
    assert.equal(stop.code, 0, stop.stderr);

    const at = (line: string): number => logs.indexOf(line);
    const order = [
      `run started: careful-hello on den by ${me}`,
      'gate asked: den: quack — confirm?',
      `emergency stop: den by mqtt user ha · client ${client}`,
      'gate answered: den: quack — no (the run stopped first)',
      'run ended: careful-hello on den: interrupted — stopped by an emergency stop',
      `run started: hello-world on den by ${me}`,
      // A stop does not wait for the kernel's word on who asked: it is said after.
      `emergency stop: den by ${me} (as the client says)`,
    ];
    for (const line of order) assert.ok(at(line) >= 0, `${line}\nnot in:\n${logs.join('\n')}`);
    const kernel = `emergency stop: den was asked over the control socket by ${me}`;
    for (let i = 0; i < 500 && at(kernel) < 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(at(kernel) > at(order.at(-1) ?? ''), `${kernel}\nnot after the stop in:\n${logs.join('\n')}`);
    assert.deepEqual(order.map(at), order.map(at).toSorted((a, b) => a - b), 'in the order they happened');
  });
});
