/**
 * Memory ids and fleet sharing, as users meet them: an id that cannot be one MQTT topic level
 * (`charger#1`, `a/b`) is refused by `memory import`, and one already in a store (imported by an
 * older quackd) stays home with one log line while `quackd serve` keeps sharing everything else
 * through a real mosquitto, instead of the broker cutting the link on every try.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openLmdbStore } from '../../../src/memory/lmdb-store.js';
import { runCli } from '../../helpers/cli.js';
import { noMosquitto, startMosquitto } from '../../helpers/mosquitto.js';
import { serve } from '../../helpers/serve.js';
import { tempDir } from '../../helpers/tmp.js';

const KEY = 'microduck:sim2d';
const config = (robot: string, url: string) => `robots:\n  ${robot}: { body: ${KEY} }\nmqtt:\n  url: ${url}\n  base_topic: quackd-${robot}\n  homeassistant: { enabled: false }\nmemory:\n  share: true\n`;
const line = (id: string, text: string) =>
  JSON.stringify({ v: 1, id, kind: 'note', body: KEY, text, tags: [], source: 'human', created: '2026-12-05T19:06:05.395Z', time: '2026-12-05T19:06:05.395Z', seq: 1, history: [] });
const q = (home: string, ...args: string[]) => runCli(args, { env: { QUACKD_HOME: home, COLUMNS: '200' } });

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms: number): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - start > ms) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('memory ids and fleet sharing, spawned', { skip: noMosquitto }, () => {
  it('import refuses an id that is no topic level; one already stored stays home and sharing goes on', async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    const hall = tempDir('quackd-ids-hall-');
    const desk = tempDir('quackd-ids-desk-');
    writeFileSync(join(hall, 'config.yaml'), config('hall', broker.url));

    const file = join(hall, 'm.jsonl');
    writeFileSync(file, [line('charger#1', 'the charger is under the desk'), line('shelf/2', 'the shelf is by the door'), line('n-kept01', 'the ball is red')].join('\n'));
    const imported = await q(hall, 'memory', 'import', file);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stderr, /skipped 2 lines \(1: its id is not one quackd keeps .*; 2: its id is not one quackd keeps .*\); 1 kept/);
    assert.match(imported.stdout, /1 added/);

    // As an older quackd left it: an entry with such an id already in the store.
    const store = openLmdbStore(join(hall, 'memory'));
    store.body(KEY).batch((tx) => tx.put({ ...JSON.parse(line('charger#1', 'the charger is under the desk')), seq: 5 }));
    await store.close();

    const hallServe = await serve(hall, config('hall', broker.url));
    await serve(desk, config('desk', broker.url));
    assert.equal((await q(hall, 'memory', 'add', 'a later note', '--robot', KEY)).code, 0);
    const texts = async (home: string) => (await q(home, 'memory', 'show', '--raw', '--robot', KEY)).stdout;
    await until('the later note on desk', async () => ((await texts(desk)).includes('a later note') ? true : undefined), 5000);
    // A forget of it is no message either.
    assert.equal((await q(hall, 'memory', 'forget', 'charger#1', '--robot', KEY)).code, 0);
    assert.equal((await q(hall, 'memory', 'add', 'the newest note', '--robot', KEY)).code, 0);
    await until('the newest note on desk', async () => ((await texts(desk)).includes('the newest note') ? true : undefined), 5000);

    const health = await q(hall, 'health', '--robot', 'hall', '--json');
    const share = (JSON.parse(health.stdout) as { check: string; detail: string }[]).find((l) => l.check === 'memory share');
    assert.match(share?.detail ?? '', /^connected · \d+ in, \d+ out, 0 pending, 0 dropped/, health.stdout);
    assert.doesNotMatch(broker.log(), /protocol error/i);
    assert.doesNotMatch(await texts(desk), /charger/);
    assert.equal(hallServe.stderr().split('\n').filter((l) => l.includes('is not a memory id stays on this robot')).length, 1, hallServe.stderr());
  });
});
