/**
 * Fleet memory as users run it: three `quackd serve` (the built bin) with their own homes and
 * base topics, one mosquitto, `memory: { share: true }`. A note added on one is in the next run's
 * prompt on another within 2 s, `memory show` says which robot wrote it, a forget spreads, a quackd
 * started afterwards catches up, and health shows the replication state.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertFreshBuild } from '../../helpers/cli.js';
import { readCredentials } from '../../../src/mqtt/credentials.js';
import { freePort, noMosquitto, startMosquitto, type Mosquitto } from '../../helpers/mosquitto.js';
import { quackd } from '../../helpers/quackd.js';
import { serve } from '../../helpers/serve.js';
import { tempDir } from '../../helpers/tmp.js';

const KEY = 'microduck:sim2d';
const config = (robot: string, url: string) => `robots:\n  ${robot}: { body: ${KEY} }\nmqtt:\n  url: ${url}\n  base_topic: quackd-${robot}\n  homeassistant: { enabled: false }\nmemory:\n  share: true\n`;

async function notes(home: string): Promise<{ id: string; text: string; from?: string }[]> {
  const r = await quackd(['memory', 'show', '--json', '--robot', KEY], { env: { QUACKD_HOME: home } });
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { notes: { id: string; text: string; from?: string }[] }).notes;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return { value, ms: Date.now() - start };
    if (Date.now() - start > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** One mosquitto and two services sharing through it, `hall` and `desk`. */
async function twoServices(): Promise<{ broker: Mosquitto; hall: string; desk: string }> {
  assertFreshBuild();
  const broker = await startMosquitto();
  after(() => broker.stop());
  const hall = tempDir('quackd-share-hall-');
  const desk = tempDir('quackd-share-desk-');
  await Promise.all([serve(hall, config('hall', broker.url)), serve(desk, config('desk', broker.url))]);
  return { broker, hall, desk };
}

describe('quackd serve shares memory through the broker, spawned', { skip: noMosquitto }, () => {
  it('a note reaches the other robots’ next run within 2 s; a forget spreads; a late quackd catches up', async () => {
    const { broker, hall, desk } = await twoServices();

    const added = await quackd(['memory', 'add', 'the ball rolls under the radiator', '--robot', KEY], { env: { QUACKD_HOME: hall } });
    assert.equal(added.code, 0, added.stderr);
    const arrived = await until('the note on desk', async () => (await notes(desk)).find((n) => n.text === 'the ball rolls under the radiator'), 2000);
    console.log(`# a note from hall on desk after ${arrived.ms} ms`);
    assert.equal(arrived.value.from, 'hall');

    // The next run's prompt on desk has it.
    const run = await quackd(['run', 'hello-world', '--robot', 'desk'], { env: { QUACKD_HOME: desk } });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout.split('\n')[0] ?? '', /^memory: 1 note, /);
    const show = await quackd(['memory', 'show', '--robot', KEY], { env: { QUACKD_HOME: desk, COLUMNS: '200' } });
    assert.match(show.stdout, /the ball rolls under the radiator.*from hall/);

    const health = await quackd(['health', '--robot', 'desk', '--json'], { env: { QUACKD_HOME: desk } });
    const line = (JSON.parse(health.stdout) as { check: string; status: string; detail: string }[]).find((l) => l.check === 'memory share');
    assert.equal(line?.status, 'ok', health.stdout);
    assert.match(line?.detail ?? '', /^connected · 1 in, \d+ out, 0 pending, 0 dropped · last sync /);

    // Doctor says what the broker was told (the state file beside the store).
    const doctor = await quackd(['memory', 'doctor'], { env: { QUACKD_HOME: desk } });
    assert.match(doctor.stdout, new RegExp(`${KEY}  shared: 1 entry and 0 forgets on the broker`), doctor.stdout);

    // A quackd started afterwards catches up from the retained messages.
    await quackd(['memory', 'add', 'the charger is under the desk', '--robot', KEY], { env: { QUACKD_HOME: desk } });
    const attic = tempDir('quackd-share-attic-');
    await serve(attic, config('attic', broker.url));
    await until('attic caught up', async () => ((await notes(attic)).length === 2 ? true : undefined), 5000);

    // A forget on desk spreads to both others.
    const forget = await quackd(['memory', 'forget', arrived.value.id, '--robot', KEY], { env: { QUACKD_HOME: desk } });
    assert.equal(forget.code, 0, forget.stderr);
    for (const home of [hall, attic]) await until('the forget spread', async () => ((await notes(home)).every((n) => n.id !== arrived.value.id) ? true : undefined), 2000);
  });

  it('concurrent supersedes of one topic on two quackds converge to the same note on both, round after round', async () => {
    const { hall, desk } = await twoServices();
    const ball = async (home: string) => JSON.stringify((await notes(home)).map((n) => [n.id, n.text]));
    for (let i = 0; i < 8; i += 1) {
      const adds = await Promise.all(
        [hall, desk].map((home, j) => quackd(['memory', 'add', `the ball is at spot ${i}${'ab'[j] ?? ''}`, '--topic', 'ball', '--robot', KEY], { env: { QUACKD_HOME: home } })),
      );
      for (const a of adds) assert.equal(a.code, 0, a.stderr);
      await until(`round ${i} converged`, async () => {
        const [h, d] = [await ball(hall), await ball(desk)];
        return h === d && (JSON.parse(h) as unknown[]).length === 1 && h.includes(`spot ${i}`) ? true : undefined;
      }, 3000);
    }
  });
});

describe('quackd serve shares memory through its embedded broker, spawned', () => {
  it('the host shares with its own login; a quackd joining with the memory right gets and gives notes', async () => {
    assertFreshBuild();
    const port = await freePort();
    const hall = tempDir('quackd-share-host-');
    await serve(hall, `robots:\n  hall: { body: ${KEY} }\nmqtt:\n  port: ${port}\n  homeassistant: { enabled: false }\n  users:\n    desk: { may: [memory] }\nmemory:\n  share: true\n`);
    const password = readCredentials(hall)?.get('desk');
    assert.ok(password !== undefined);
    const desk = tempDir('quackd-share-joiner-');
    await serve(desk, `robots:\n  desk: { body: ${KEY} }\nmqtt:\n  url: mqtt://127.0.0.1:${port}\n  version: 4\n  username: desk\n  password: ${password}\n  base_topic: quackd-desk\n  homeassistant: { enabled: false }\nmemory:\n  share: true\n`);

    await quackd(['memory', 'add', 'the charger is under the desk', '--robot', KEY], { env: { QUACKD_HOME: desk } });
    const arrived = await until('the joiner’s note on the host', async () => (await notes(hall)).find((n) => n.text === 'the charger is under the desk'), 2000);
    assert.equal(arrived.value.from, 'desk');
    await quackd(['memory', 'add', 'the ball rolls under the radiator', '--robot', KEY], { env: { QUACKD_HOME: hall } });
    await until('the host’s note on the joiner', async () => (await notes(desk)).find((n) => n.text === 'the ball rolls under the radiator'), 2000);
  });
});
