/**
 * The config file's `mqtt:` section: defaults, off, an external broker, a password file that must
 * be 0600, errors on their lines, and what `quackd config check` says of it.
 */
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadConfigFile } from '../../src/config/file.js';
import { InputError } from '../../src/errors.js';
import { describeBroker, resolveMqttSettings } from '../../src/mqtt/settings.js';
import { redact } from '../../src/secrets.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';

describe('mqtt: settings', () => {
  it('absent or true: the embedded broker on 127.0.0.1:1883, MQTT 3.1.1, base quackd, HA discovery on', () => {
    for (const section of [undefined, true] as const) {
      const s = resolveMqttSettings(section, '/');
      assert.deepEqual(s?.broker, { kind: 'embedded', host: '127.0.0.1', port: 1883 });
      assert.equal(s?.version, 4);
      assert.equal(s?.baseTopic, 'quackd');
      assert.deepEqual(s?.homeassistant, { enabled: true, discoveryPrefix: 'homeassistant', statusTopic: 'homeassistant/status' });
      assert.equal(s?.stateHz, 5);
      assert.equal(s?.healthIntervalMs, 60_000);
    }
  });

  it('false turns MQTT off; a url means that broker, MQTT 5 unless told', () => {
    assert.equal(resolveMqttSettings(false, '/'), undefined);
    const ext = resolveMqttSettings({ url: 'mqtts://user:hunter2-secret@broker.lan:8883', homeassistant: { enabled: false } }, '/');
    assert.deepEqual(ext?.broker, { kind: 'external', url: 'mqtts://user:hunter2-secret@broker.lan:8883' });
    assert.equal(ext?.version, 5);
    assert.equal(ext?.homeassistant.enabled, false);
    assert.ok(ext !== undefined);
    assert.equal(describeBroker(ext), 'mqtts://broker.lan:8883');
    // A password in the URL is masked in every log line.
    assert.equal(redact('connecting with hunter2-secret'), 'connecting with [redacted]');
    assert.equal(resolveMqttSettings({ url: 'mqtt://broker.lan', version: 4 }, '/')?.version, 4);
  });

  it('password_file: read when 0600, refused with the chmod when others can read it', () => {
    const dir = tempDir('quackd-mqtt-');
    const file = join(dir, 'mqtt-password');
    writeFileSync(file, 'correct-horse-battery\n');
    chmodSync(file, 0o644);
    assert.throws(
      () => resolveMqttSettings({ url: 'mqtt://b', username: 'duck', password_file: 'mqtt-password' }, dir),
      (err: unknown) => err instanceof InputError && /open to other users/.test(err.message) && err.hint === `chmod 600 ${file}`,
    );
    chmodSync(file, 0o600);
    assert.equal(resolveMqttSettings({ url: 'mqtt://b', username: 'duck', password_file: 'mqtt-password' }, dir)?.password, 'correct-horse-battery');
  });
});

describe('mqtt: in config.yaml', () => {
  const load = async (yaml: string) => {
    const home = tempDir('quackd-home-');
    writeFileSync(join(home, 'config.yaml'), yaml);
    return loadConfigFile({ QUACKD_HOME: home });
  };

  it('accepts a full section and false', async () => {
    const full = await load('mqtt:\n  url: mqtt://127.0.0.1:1883\n  base_topic: house/quackd\n  username: duck\n  version: 4\n  state_hz: 2\n  homeassistant:\n    discovery_prefix: ha\n  tls:\n    reject_unauthorized: true\n');
    assert.deepEqual(full.config.mqtt, { url: 'mqtt://127.0.0.1:1883', base_topic: 'house/quackd', username: 'duck', version: 4, state_hz: 2, homeassistant: { discovery_prefix: 'ha' }, tls: { reject_unauthorized: true } });
    assert.deepEqual((await load('mqtt: false\n')).config.mqtt, { enabled: false });
    assert.equal(resolveMqttSettings((await load('mqtt: false\n')).config.mqtt, '/'), undefined);
  });

  it("README's mqtt: examples are valid sections", async () => {
    const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    const section = /### MQTT([\s\S]*?)\n## /.exec(readme)?.[1] ?? '';
    const examples = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
    assert.equal(examples.length, 2, 'README has the logins and the external broker yaml blocks under ### MQTT');
    const [logins, external] = await Promise.all(examples.map((e) => load(e)));
    assert.deepEqual(logins?.config.mqtt?.users?.['homeassistant']?.may, ['command', 'confirm']);
    assert.equal(external?.config.mqtt?.url, 'mqtts://broker.lan:8883');
    assert.equal(external?.config.mqtt?.password_file, 'mqtt-password');
  });

  it('a bad value is reported on its line', async () => {
    await assert.rejects(load('pilot:\n  provider: fake\nmqtt:\n  url: http://broker\n'), /config\.yaml:4: mqtt\.url: expected an mqtt:\/\/ or mqtts:\/\/ URL/);
    await assert.rejects(load('mqtt:\n  base_topic: "quackd/#"\n'), /config\.yaml:2: mqtt\.base_topic: a topic without wildcards/);
    await assert.rejects(load('mqtt:\n  version: 3\n'), /config\.yaml:2: mqtt\.version/);
    await assert.rejects(load('mqtt:\n  urll: mqtt://b\n'), /config\.yaml:2: mqtt: unknown key "urll"/);
    await assert.rejects(load('mqtt:\n  password: a\n  password_file: b\n'), /password or password_file, not both/);
  });

  it('listen: the embedded broker on another loopback address or port; never with a url or beside port', async () => {
    const v6 = await load('mqtt:\n  listen: { host: "::1", port: 18830 }\n');
    const s = resolveMqttSettings(v6.config.mqtt, '/');
    assert.deepEqual(s?.broker, { kind: 'embedded', host: '::1', port: 18830 });
    assert.ok(s !== undefined);
    assert.equal(describeBroker(s), 'embedded [::1]:18830');
    // localhost is dialled as it is bound: 127.0.0.1, never a name that may resolve to ::1 for one side only.
    assert.deepEqual(resolveMqttSettings((await load('mqtt:\n  listen: { host: localhost }\n')).config.mqtt, '/')?.broker, { kind: 'embedded', host: '127.0.0.1', port: 1883 });
    assert.deepEqual(resolveMqttSettings((await load('mqtt:\n  listen: { port: 1999 }\n')).config.mqtt, '/')?.broker, { kind: 'embedded', host: '127.0.0.1', port: 1999 });
    await assert.rejects(load('mqtt:\n  url: mqtt://broker.lan\n  listen: { port: 1999 }\n'), /config\.yaml:3: mqtt\.listen: listen is where the embedded broker listens; with a url/);
    await assert.rejects(load('mqtt:\n  port: 1884\n  listen:\n    port: 1999\n'), /config\.yaml:4: mqtt\.listen\.port: give port or listen\.port, not both/);
  });

  it('listen off loopback is refused at config check, in one line naming the authentication it needs', async () => {
    const home = tempDir('quackd-home-');
    for (const host of ['0.0.0.0', '192.168.1.20', '::', 'duck.local']) {
      writeFileSync(join(home, 'config.yaml'), `mqtt:\n  listen:\n    host: "${host}"\n`);
      const r = await quackd(['config', 'check'], { env: { QUACKD_HOME: home } });
      assert.equal(r.code, 2, r.stdout);
      const lines = r.stderr.trim().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0] ?? '', new RegExp(`config\\.yaml:3: mqtt\\.listen\\.host: ${host.replace(/\./g, '\\.')} is not loopback: the embedded broker has no TLS`));
    }
    writeFileSync(join(home, 'config.yaml'), 'mqtt:\n  listen:\n    host: 127.0.0.1\n    port: 18831\n');
    const ok = await quackd(['config', 'check'], { env: { QUACKD_HOME: home } });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^mqtt +embedded 127\.0\.0\.1:18831 · MQTT 3\.1\.1/m);
  });

  it('quackd config check shows the broker, and says a bad password file keeps the service off MQTT', async () => {
    const home = tempDir('quackd-home-');
    const plain = await quackd(['config', 'check'], { env: { QUACKD_HOME: home } });
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /^mqtt +embedded 127\.0\.0\.1:1883 · MQTT 3\.1\.1 · base quackd\/ · HA discovery under homeassistant\/ · logins homeassistant \(reads\): quackd mqtt credentials {2}\(default\)$/m);
    writeFileSync(join(home, 'pw'), 'secret-password-1\n');
    chmodSync(join(home, 'pw'), 0o640);
    writeFileSync(join(home, 'config.yaml'), 'mqtt:\n  url: mqtt://broker.lan\n  username: duck\n  password_file: pw\n');
    const bad = await quackd(['config', 'check'], { env: { QUACKD_HOME: home } });
    assert.equal(bad.code, 0, 'MQTT does not stop a run');
    assert.match(bad.stdout, /^mqtt +off {2}\(mqtt in .*config\.yaml\)$/m);
    assert.match(bad.stdout, /open to other users .*: quackd serve would go on without MQTT/);
  });
});
