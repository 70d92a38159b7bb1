/**
 * MQTT's door of the service against a real mosquitto that speaks TLS, asks for client
 * certificates, or checks a password file: what connects is published and retained (as a second
 * client over TLS sees it), and what the broker turns down is one clear log line, no crash and no
 * motion. MQTT 5 with mosquitto: commands on `set` answered on its response topic. Certificates
 * are made for the suite with openssl (test/helpers/certs.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { connectAsync, type IClientOptions } from 'mqtt';
import { loadConfigFile } from '../../src/config/file.js';
import { createLogger, withLogs } from '../../src/log.js';
import { MqttSectionSchema } from '../../src/mqtt/config.js';
import { mqttServiceDoor } from '../../src/mqtt/service-door.js';
import { makeTestCerts, noOpenssl, type TestCerts } from '../helpers/certs.js';
import { noMosquitto, startMosquitto, type Mosquitto, type MosquittoOptions } from '../helpers/mosquitto.js';
import { watch } from '../helpers/mqtt-watch.js';
import { ServiceDouble } from '../helpers/service-double.js';
import { tempDir } from '../helpers/tmp.js';

let bases = 0;

interface LogRecord {
  readonly level: number;
  readonly msg: string;
  readonly reason?: string;
}

interface Rig {
  readonly base: string;
  readonly api: ServiceDouble;
  readonly door: NonNullable<ReturnType<typeof mqttServiceDoor>>;
  /** The door's log records, as JSON lines. */
  readonly lines: string[];
  /** Its warnings and worse. */
  warnings(): LogRecord[];
}

/** The service's MQTT door for `section` (parsed as config.yaml's is) on a fleet of one, started, its logs kept. */
async function serveDoor(broker: Mosquitto, section: Record<string, unknown>, configDir = '/'): Promise<Rig> {
  const base = `qtls${process.pid}_${++bases}`;
  const api = new ServiceDouble([{ robot: 'kitchen', key: 'microduck:sim2d' }]);
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      done();
    },
  });
  const parsed = MqttSectionSchema.parse({ url: broker.url, base_topic: base, ...section });
  const door = await withLogs(createLogger('info', sink), async () => {
    const d = mqttServiceDoor(parsed, configDir, { reconnectMinMs: 20, reconnectMaxMs: 100, connectTimeoutMs: 2000 });
    assert.ok(d !== undefined);
    after(() => d.stop());
    await d.start(api);
    return d;
  });
  // The test brokers let anonymous clients in, and quackd's stranger check says so (front-door.test.ts): not this file's concern.
  const warnings = () => lines.map((l) => JSON.parse(l) as LogRecord).filter((r) => r.level >= 40 && !(r.msg ?? '').startsWith('an MQTT client with no login can command'));
  return { base, api, door, lines, warnings };
}

async function until(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const linkState = (rig: Rig) => rig.door.mqtt()?.status().state;
const online = (rig: Rig) => until('the door online', () => linkState(rig) === 'online');

/** Lines of the broker's log with `text`: one a connection it turned away. */
const brokerSaid = (broker: Mosquitto, text: string) => broker.log().split('\n').filter((l) => l.includes(text)).length;

interface Seen {
  readonly payload: string;
  readonly retain: boolean;
}

/**
 * The first message on each of `topics` that a second client (MQTT 5, with `options`: the TLS
 * files, a login) gets. watch() speaks plain 3.1.1 with no options, so this one is its own.
 */
async function firstOn(url: string, options: IClientOptions, topics: readonly string[]): Promise<Map<string, Seen>> {
  const client = await connectAsync(url, { protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 5000, clientId: `tls_${process.pid}_${++bases}`, ...options });
  try {
    const seen = new Map<string, Seen>();
    const all = new Promise<void>((resolve) => {
      client.on('message', (topic, payload, packet) => {
        if (!seen.has(topic)) seen.set(topic, { payload: payload.toString('utf8'), retain: packet.retain });
        if (topics.every((t) => seen.has(t))) resolve();
      });
    });
    await client.subscribeAsync([...topics], { qos: 1 });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`got ${[...seen.keys()].join(', ')} of ${topics.join(', ')}`)), 10_000)));
    await Promise.race([all, late]).finally(() => clearTimeout(timer));
    return seen;
  } finally {
    await client.endAsync(true);
  }
}

/** The door's bridge state, and the robot's state and availability, are on the broker and retained: a client arriving after them is handed them. */
async function assertRetained(rig: Rig, url: string, options: IClientOptions): Promise<void> {
  const topics = [`${rig.base}/bridge/state`, `${rig.base}/kitchen/state`, `${rig.base}/kitchen/availability`];
  await firstOn(url, options, topics);
  const late = await firstOn(url, options, topics);
  for (const t of topics) assert.equal(late.get(t)?.retain, true, `${t} retained`);
  assert.equal(late.get(`${rig.base}/bridge/state`)?.payload, 'online');
  assert.equal(late.get(`${rig.base}/kitchen/availability`)?.payload, 'online');
  assert.equal((JSON.parse(late.get(`${rig.base}/kitchen/state`)?.payload ?? '{}') as { key?: string }).key, 'microduck:sim2d');
}

/**
 * The broker turned the door away for `why`: one warning saying so however many times it retried
 * (`turnedAway` counts them in the broker's log), the status line says it too, nothing was asked
 * of the robots, and the door stops cleanly.
 */
async function assertTurnedDown(rig: Rig, why: RegExp, turnedAway: () => number): Promise<void> {
  await until('the door to be turned down', () => linkState(rig) === 'offline');
  await until('three retries', () => turnedAway() >= 3);
  const warned = rig.warnings();
  assert.equal(warned.length, 1, rig.lines.join('\n'));
  assert.match(warned[0]?.msg ?? '', /^MQTT broker turned us down; retrying/);
  assert.match(warned[0]?.reason ?? '', why);
  // One line: no OpenSSL hex or source file in it.
  assert.doesNotMatch(warned[0]?.reason ?? '', /\n|error:0A|\.c:\d/);
  const line = rig.door.status?.()[0];
  assert.equal(line?.ok, false);
  assert.match(line?.value ?? '', why);
  assert.deepEqual(rig.api.calls, [], 'no robot was asked to do anything');
  await rig.door.stop();
  assert.equal(linkState(rig), 'stopped');
}

describe('MQTT with TLS, client certificates and passwords (mosquitto)', { skip: noMosquitto ?? noOpenssl }, () => {
  let certs: TestCerts;
  const brokers: Mosquitto[] = [];
  const broker = async (options: MosquittoOptions) => {
    const b = await startMosquitto(options);
    brokers.push(b);
    return b;
  };
  const made: TestCerts[] = [];
  before(() => {
    certs = makeTestCerts();
    made.push(certs);
  });
  after(async () => {
    await Promise.all(brokers.map((b) => b.stop()));
    for (const c of made) c.remove();
  });

  test('TLS with the CA: state and availability are published and retained, as a client over TLS sees them', async () => {
    const b = await broker({ tls: { ca: certs.ca, ...certs.server } });
    assert.match(b.url, /^mqtts:\/\//);
    const rig = await serveDoor(b, { tls: { ca: certs.ca } });
    await online(rig);
    await assertRetained(rig, b.url, { ca: readFileSync(certs.ca) });
    assert.deepEqual(rig.warnings(), []);
    assert.match(rig.door.status?.()[0]?.value ?? '', new RegExp(`^connected to mqtts://127\\.0\\.0\\.1:${b.port}`));
  });

  describe('a broker that requires a client certificate', () => {
    let b: Mosquitto;
    before(async () => {
      b = await broker({ tls: { ca: certs.ca, ...certs.server, requireCertificate: true } });
    });

    test('with cert and key: it connects and publishes', async () => {
      const rig = await serveDoor(b, { tls: { ca: certs.ca, cert: certs.client.cert, key: certs.client.key } });
      await online(rig);
      await assertRetained(rig, b.url, { ca: readFileSync(certs.ca), cert: readFileSync(certs.client.cert), key: readFileSync(certs.client.key) });
    });

    test('without them: one line saying the broker asks for a client certificate, no crash, no motion', async () => {
      const earlier = brokerSaid(b, 'peer did not return a certificate');
      const rig = await serveDoor(b, { tls: { ca: certs.ca } });
      await assertTurnedDown(rig, /the broker asks for a client certificate: set mqtt\.tls\.cert and mqtt\.tls\.key/, () => brokerSaid(b, 'peer did not return a certificate') - earlier);
    });

    test('with a certificate of another CA: one line saying the broker refused it', async () => {
      const earlier = brokerSaid(b, 'certificate verify failed');
      const rig = await serveDoor(b, { tls: { ca: certs.ca, cert: certs.strangerServer.cert, key: certs.strangerServer.key } });
      await assertTurnedDown(rig, /the broker refused our client certificate \(tlsv1 alert unknown ca\)/, () => brokerSaid(b, 'certificate verify failed') - earlier);
    });
  });

  describe('a broker whose certificate comes from a CA quackd was not given', () => {
    let b: Mosquitto;
    before(async () => {
      b = await broker({ tls: { ca: certs.strangerCa, ...certs.strangerServer } });
    });

    test('refused by default (reject_unauthorized true): one line naming mqtt.tls.ca', async () => {
      const earlier = brokerSaid(b, 'New connection from');
      const rig = await serveDoor(b, { tls: { ca: certs.ca } });
      // quackd hangs up during the handshake: each attempt is a connection the broker saw and nothing more.
      await assertTurnedDown(rig, /the broker's certificate is not signed by a CA quackd trusts \(self-signed certificate in certificate chain\): set mqtt\.tls\.ca/, () => brokerSaid(b, 'New connection from') - earlier);
      assert.equal(brokerSaid(b, 'New client connected'), 0, 'no MQTT session was opened');
    });

    test('reject_unauthorized: false connects (a test bench)', async () => {
      const rig = await serveDoor(b, { tls: { ca: certs.ca, reject_unauthorized: false } });
      await online(rig);
      await assertRetained(rig, b.url, { ca: readFileSync(certs.strangerCa) });
    });
  });

  describe("username and password_file against mosquitto's password file", () => {
    let b: Mosquitto;
    before(async () => {
      b = await broker({ users: { quackd: 'correct-horse-battery', watcher: 'watch-word' } });
    });
    /** The door's `mqtt:` login and the config folder its 0600 password file is in. */
    const login = (password: string) => {
      const dir = tempDir('quackd-mqtt-login-');
      writeFileSync(join(dir, 'mqtt-password'), `${password}\n`, { mode: 0o600 });
      return { section: { username: 'quackd', password_file: 'mqtt-password' }, dir };
    };

    test('the right password: it connects and publishes', async () => {
      const { section, dir } = login('correct-horse-battery');
      const rig = await serveDoor(b, section, dir);
      await online(rig);
      assert.match(b.log(), /New client connected .* u'quackd'\)/);
      const w = await watch(b.url.replace('mqtt://', 'mqtt://watcher:watch-word@'), [`${rig.base}/bridge/state`]);
      assert.equal((await w.waitFor(() => true, 'bridge state')).payload, 'online');
    });

    test('a wrong password: one line saying the login was refused, the password in no line, no crash, no motion', async () => {
      const earlier = brokerSaid(b, 'not authorised');
      const { section, dir } = login('wrong-staple');
      const rig = await serveDoor(b, section, dir);
      await assertTurnedDown(rig, /the broker refused the login \(Not authorized\): check mqtt\.username and the password \(mqtt\.password_file\)/, () => brokerSaid(b, 'not authorised') - earlier);
      assert.ok(!rig.lines.join('\n').includes('wrong-staple'));
      assert.ok(!JSON.stringify(rig.door.status?.()).includes('wrong-staple'));
    });
  });

  test('MQTT 5: the door speaks protocol 5 to mosquitto, and commands on set are answered on set/response', async () => {
    const b = await broker({});
    const clientId = `quackd_v5_${process.pid}`;
    const rig = await serveDoor(b, { version: 5, client_id: clientId });
    await online(rig);
    assert.match(b.log(), new RegExp(`New client connected from 127\\.0\\.0\\.1:\\d+ as ${clientId} \\(p5,`));
    const w = await watch(b.url, [`${rig.base}/kitchen/set/response`]);
    const started = await w.ask(`${rig.base}/kitchen/set`, { run: 'hello-world' }, `${rig.base}/kitchen/set/response`);
    assert.equal(started['status'], 'ok', JSON.stringify(started));
    const refused = await w.ask(`${rig.base}/kitchen/set`, { run: 'no-such-duck' }, `${rig.base}/kitchen/set/response`);
    assert.equal(refused['status'], 'error');
    const stopped = await w.ask(`${rig.base}/kitchen/set`, { stop: true }, `${rig.base}/kitchen/set/response`);
    assert.equal(stopped['status'], 'ok', JSON.stringify(stopped));
    assert.deepEqual(
      rig.api.calls.map((c) => c.method),
      ['run', 'run', 'stop'],
    );
  });

  test('certificates with an mqtt:// url (nothing would be encrypted): config.yaml is refused on its line', async () => {
    const home = tempDir('quackd-home-');
    writeFileSync(join(home, 'config.yaml'), `mqtt:\n  url: mqtt://127.0.0.1:8883\n  tls:\n    ca: ${certs.ca}\n`);
    await assert.rejects(loadConfigFile({ QUACKD_HOME: home }), /config\.yaml:4: mqtt\.tls: certificates need an mqtts:\/\/ url/);
  });
});
