/**
 * Bench: an MQTT stop under a flood of commands (issue 24). The embedded broker and the front
 * door in this process (a ServiceDouble behind it, as in test/mqtt/flood.test.ts); a flooder in a
 * child process of its own sends 10,000 run commands as fast as it can, and while they pour in
 * Home Assistant's login sends `{"stop": true}`. Measured: from that publish to the service's
 * stop() being called, idle and under the flood, over several trials. Goal: ≤ 50 ms under the
 * flood (the issue saw up to 307 ms, against ~9 idle).
 *
 *   node --import tsx bench/mqtt-flood.ts [--trials N]     (N 7 by default)
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectAsync } from 'mqtt';
import { createMqttFrontDoor } from '../src/mqtt/front-door.js';
import { readCredentials } from '../src/mqtt/credentials.js';
import { resolveMqttSettings } from '../src/mqtt/settings.js';
import { freePort } from '../test/helpers/mosquitto.js';
import { ServiceDouble } from '../test/helpers/service-double.js';
import { fmt, median } from './_stats.js';

const FLOOD = 10_000;
const trialsFlag = process.argv.indexOf('--trials');
const TRIALS = trialsFlag > 0 ? Number(process.argv[trialsFlag + 1]) : 7;
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const FLOODER = `
import { connectAsync } from 'mqtt';
const [url, username, password, count] = process.argv.slice(1);
const c = await connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, username, password });
console.log('flooding');
for (let i = 0; i < Number(count); i++) {
  c.publish('quackd/hall/set', '{"run":"hello-world"}');
  if (i % 500 === 499) await new Promise((r) => setImmediate(r));
}
console.log('sent');
`;

const home = mkdtempSync(join(tmpdir(), 'quackd-bench-flood-'));
const port = await freePort();
const api = new ServiceDouble([
  { robot: 'kitchen', key: 'microduck:sim2d' },
  { robot: 'hall', key: 'microduck:sim2d' },
]);
let stopped: (() => void) | undefined;
const stop = api.stop.bind(api);
api.stop = (...args) => {
  stopped?.();
  return stop(...args);
};
const settings = resolveMqttSettings({ port, homeassistant: { enabled: false }, users: { homeassistant: { may: ['command', 'confirm'] }, flooder: { may: ['command'] } } }, '/');
if (settings === undefined) throw new Error('no settings');
const door = createMqttFrontDoor(settings, api, { dataDir: home });
await door.start();
while (door.status().state !== 'online') await new Promise((r) => setTimeout(r, 10));
const url = `mqtt://127.0.0.1:${port}`;
const pw = (user: string): string => readCredentials(home)?.get(user) ?? '';
const ha = await connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, username: 'homeassistant', password: pw('homeassistant') });
(ha.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);

async function stopLatency(): Promise<number> {
  const called = new Promise<number>((resolve) => (stopped = () => resolve(performance.now())));
  const t0 = performance.now();
  ha.publish('quackd/kitchen/set', '{"stop":true}', { qos: 1 });
  return (await called) - t0;
}

const idle: number[] = [];
const flooded: number[] = [];
for (let t = 0; t < TRIALS; t++) {
  idle.push(await stopLatency());
  const child = spawn(process.execPath, ['--input-type=module', '-e', FLOODER, url, 'flooder', pw('flooder'), String(FLOOD)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  const said = (word: string) => new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => ((out += d.toString()), out.includes(word) ? resolve() : undefined)));
  await said('flooding');
  // Well into the flood: its commands are arriving.
  await new Promise((r) => setTimeout(r, 30));
  flooded.push(await stopLatency());
  // The broker reads a flooder at the rate limit: the rest of its 10,000 would take minutes.
  const closed = new Promise((r) => child.on('close', r));
  child.kill();
  await closed;
  await new Promise((r) => setTimeout(r, 2100));
}
console.log(`stop over MQTT, publish → stop() called, ${TRIALS} trials each`);
console.log(`  idle            p50 ${fmt(median(idle))} ms · max ${fmt(Math.max(...idle))} ms`);
console.log(`  10,000 flood    p50 ${fmt(median(flooded))} ms · max ${fmt(Math.max(...flooded))} ms   (goal ≤ 50 ms)`);
console.log(`  ratio flood/idle  p50 ${fmt(median(flooded) / median(idle), 2)} · max ${fmt(Math.max(...flooded) / median(idle), 2)}`);
console.log(`  door: ${door.status().dropped} dropped · rate-limited commands not carried out, answered at most once a second`);
await ha.endAsync();
await door.stop();
rmSync(home, { recursive: true, force: true });
