/**
 * A fleet of several bodies: two members with one adapter:backend share one memory (it is keyed
 * by body, never by name) and other bodies never see it, in a real LMDB store in a temp dir;
 * `--robot` takes a member's name or a body key; `quackd status` lists every member, each with
 * its body's memory.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import { startService, type Serving } from '../../src/service/lifecycle.js';
import type { StatusReply } from '../../src/service/socket/protocol.js';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';

const FLEET = 'robots:\n  porch: { body: xlerobot:sim }\n  hall: { body: xlerobot:sim }\n  nursery: { body: toddlerbot:sim }\n  desk: { body: reachy-mini:mock }\n';

function home(dir = tempDir('quackd-fleet-members-')): NodeJS.ProcessEnv {
  writeFileSync(join(dir, 'config.yaml'), FLEET);
  return { QUACKD_HOME: dir };
}

const firstLine = (s: string): string => s.split('\n')[0] ?? '';

describe('memory in a fleet', () => {
  it('two members with one body share its memory; another body never sees it', async () => {
    const env = home();
    const porch = await quackd(['run', 'xlerobot-lookout', '--robot', 'porch'], { env });
    assert.equal(porch.code, 0, porch.stderr);
    assert.equal(firstLine(porch.stdout), 'memory: nothing yet (xlerobot:sim)');
    assert.equal((await quackd(['memory', 'add', 'the charger is under the desk', '--robot', 'porch'], { env })).code, 0);

    // hall is another robot of the same body: it is told what porch's run and note left.
    const hall = await quackd(['run', 'xlerobot-lookout', '--robot', 'hall'], { env });
    assert.equal(hall.code, 0, hall.stderr);
    assert.equal(firstLine(hall.stdout), 'memory: 1 note, 1 earlier run (xlerobot:sim)');

    // The body key is both robots': which one it means is the person's to say.
    const byKey = await quackd(['run', 'xlerobot-lookout', '--robot', 'xlerobot:sim'], { env });
    assert.equal(byKey.code, 2, byKey.stdout);
    assert.match(byKey.stderr, /^quackd: xlerobot:sim is the body of 2 robots of the fleet \(porch, hall\): name one of them/);
    const again = await quackd(['run', 'xlerobot-lookout', '--robot', 'porch'], { env });
    assert.equal(again.code, 0, again.stderr);
    // Both earlier runs were the same lookout with the same outcome: one line, ×2 (src/memory/render.ts).
    assert.equal(firstLine(again.stdout), 'memory: 1 note, 1 of 2 earlier runs (xlerobot:sim)');

    // ToddlerBot's memory is its own: nothing of XLeRobot's reaches it, and its run stays apart.
    const nursery = await quackd(['run', 'toddlerbot-lookout', '--robot', 'nursery'], { env });
    assert.equal(nursery.code, 0, nursery.stderr);
    assert.equal(firstLine(nursery.stdout), 'memory: nothing yet (toddlerbot:sim)');
    const shown = await quackd(['memory', 'show', '--robot', 'nursery', '--raw'], { env });
    assert.doesNotMatch(shown.stdout, /charger|xlerobot-lookout/);
    assert.match(shown.stdout, /toddlerbot-lookout/);
    const hallMemory = await quackd(['memory', 'show', '--robot', 'hall', '--raw'], { env });
    assert.match(hallMemory.stdout, /the charger is under the desk/);
    assert.doesNotMatch(hallMemory.stdout, /toddlerbot-lookout/);
  });

  it('--robot takes a member by name or a body by key, and says which it ran on', async () => {
    const env = home();
    const byName = await quackd(['run', 'hello-world', '--robot', 'desk', '--no-memory'], { env });
    assert.equal(byName.code, 0, byName.stderr);
    assert.match(byName.stdout, /^hello-world on desk \(reachy-mini:mock\) · /m);
    assert.match(byName.stdout, /wiggled its antennas: quack!/);
    const byKey = await quackd(['run', 'hello-world', '--robot', 'reachy-mini:mock', '--no-memory'], { env });
    assert.equal(byKey.code, 0, byKey.stderr);
    // The key means desk, the one robot of that body, and the header says so.
    assert.match(byKey.stdout, /^hello-world on desk \(reachy-mini:mock\) · /m);
    const typo = await quackd(['run', 'hello-world', '--robot', 'nursry'], { env });
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /unknown body "nursry" \(did you mean "nursery"\?\)/);
  });
});

describe('quackd status of a fleet', () => {
  // Made here, not with tempDir(): a folder made in a hook would go when the hook ends.
  const dir = mkdtempSync(join(tmpdir(), 'quackd-fleet-status-'));
  const env = home(dir);
  let serving: Serving | undefined;

  before(async () => {
    serving = await startService({ env, pilot: () => Promise.resolve(createFakeProvider()) });
  });
  after(async () => {
    await serving?.stop('the test');
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists every member with its body, and the memory each body has', async () => {
    // Through the service: the run names a member.
    const run = await quackd(['run', 'xlerobot-lookout', '--robot', 'hall'], { env });
    assert.equal(run.code, 0, run.stderr);
    const json = JSON.parse((await quackd(['status', '--json'], { env })).stdout) as StatusReply;
    assert.deepEqual(json.robots.map((r) => [r.robot, r.key]), [['porch', 'xlerobot:sim'], ['hall', 'xlerobot:sim'], ['nursery', 'toddlerbot:sim'], ['desk', 'reachy-mini:mock']]);
    const memory = Object.fromEntries(json.robots.map((r) => [r.robot, r.memory]));
    // The run was hall's; porch shares its body's memory, the others have none yet.
    assert.deepEqual(memory['hall'], { notes: 0, episodes: 1 });
    assert.deepEqual(memory['porch'], { notes: 0, episodes: 1 });
    assert.equal(memory['nursery'], undefined);
    assert.equal(json.robots.find((r) => r.robot === 'hall')?.lastOutcome?.status, 'success');
    const text = (await quackd(['status'], { env })).stdout;
    for (const [name, key] of [['porch', 'xlerobot:sim'], ['hall', 'xlerobot:sim'], ['nursery', 'toddlerbot:sim'], ['desk', 'reachy-mini:mock']]) {
      assert.match(text, new RegExp(`^${name}\\s+idle\\s+${key}$`, 'm'));
    }
  });
});
