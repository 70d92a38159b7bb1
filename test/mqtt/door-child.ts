/**
 * A front door in a process of its own, for the last-will test: `node --import tsx door-child.ts
 * URL BASE` connects, prints `online` once connected, and runs until it is killed.
 */
import { createMqttFrontDoor } from '../../src/mqtt/front-door.js';
import { resolveMqttSettings } from '../../src/mqtt/settings.js';
import { ServiceDouble } from '../helpers/service-double.js';

const [url, base] = process.argv.slice(2);
if (url === undefined || base === undefined) throw new Error('usage: door-child.ts URL BASE');
const settings = resolveMqttSettings({ url, base_topic: base }, '/');
if (settings === undefined) throw new Error('mqtt is off');
const door = createMqttFrontDoor(settings, new ServiceDouble([{ robot: 'kitchen', key: 'microduck:sim2d' }]));
await door.start();
const poll = setInterval(() => {
  if (door.status().state !== 'online') return;
  clearInterval(poll);
  process.stdout.write('online\n');
}, 10);
// Kept alive until the test kills it.
setInterval(() => undefined, 1 << 30);
