/**
 * The lookout starters (xlerobot-, alohamini-, toddlerbot-lookout): each succeeds with the fake
 * pilot on seeds 3, 7 and 42 (in-process CLI, memory on), verified by its `success_when`; a
 * report that does not hold is not accepted as a success; their strategies carry no `remember`,
 * and memory still renders for them (the run's memory line, and the prompt's memory block).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { findDuck, STARTERS_DIR } from '../../src/ducks/find.js';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import type { PilotRequest, Provider } from '../../src/pilot/providers/provider.js';
import { PROMPT_HEADING } from '../../src/memory/render.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { noTtyGate } from '../../src/safety/gate.js';
import type { TranscriptEvent } from '../../src/transcript/events.js';
import { quackd } from '../helpers/quackd.js';
import { scripted } from '../helpers/scripted-provider.js';
import { tempDir } from '../helpers/tmp.js';

const LOOKOUTS = [
  { duck: 'xlerobot-lookout', body: 'xlerobot:sim' },
  { duck: 'alohamini-lookout', body: 'alohamini:sim' },
  { duck: 'toddlerbot-lookout', body: 'toddlerbot:sim' },
];

describe('the lookout starters with the fake pilot', () => {
  for (const { duck, body } of LOOKOUTS) {
    it(`${duck} succeeds on seeds 3, 7 and 42, verified, and its memory grows run by run`, async () => {
      const env = { QUACKD_HOME: tempDir('quackd-lookout-') };
      for (const [i, seed] of [3, 7, 42].entries()) {
        const r = await quackd(['run', duck, '--seed', String(seed)], { env });
        assert.equal(r.code, 0, `seed ${seed}: ${r.stdout}${r.stderr}`);
        const memory = i === 0 ? `memory: nothing yet (${body})` : `memory: 0 notes, ${i} earlier run${i === 1 ? '' : 's'} (${body})`;
        assert.equal(r.stdout.split('\n')[0], memory);
        assert.match(r.stdout, new RegExp(`^${duck} on ${body} · pilot fake`, 'm'));
        assert.match(r.stdout, /^ {2}1 {2}look_around {8}looked all round: /m);
        assert.match(r.stdout, /^ {2}2 {2}report \d things {4}reported .*: every sighting holds$/m);
        assert.match(r.stdout, /success — .*\(objects_reported [3-9] ≥ 3, objects_misreported 0 = 0\)/);
      }
    });
  }

  it('their strategies carry no remember line, and their success_when reads what the body measures', () => {
    for (const { duck, body } of LOOKOUTS) {
      const d = findDuck(duck);
      assert.equal(d.robot, body);
      assert.doesNotMatch(d.text, /remember/i, duck);
      assert.ok(!d.verbs.includes('remember'));
      assert.deepEqual(d.successWhen.map((c) => `${c.metric} ${c.op} ${c.value}`), ['objects_reported >= 3', 'objects_misreported == 0']);
      assert.doesNotMatch(readFileSync(join(STARTERS_DIR, `${duck}.duck`), 'utf8'), /remember/i);
    }
  });
});

describe('a lookout run', () => {
  function runtime() {
    const home = tempDir('quackd-lookout-rt-');
    return createRuntime({ memoryDir: join(home, 'memory'), transcriptsDir: join(home, 'transcripts') });
  }

  const run = (rt: ReturnType<typeof runtime>, provider: Provider, events: TranscriptEvent[] = []) =>
    rt.run({ duck: findDuck('xlerobot-lookout'), robot: rt.robot('xlerobot:sim'), seed: 7, provider, gate: noTtyGate, dryRun: false, signal: new AbortController().signal, onEvent: (e) => events.push(e) });

  it('renders memory into the pilot\'s prompt, though its strategy never says remember', async () => {
    const rt = runtime();
    try {
      assert.equal((await run(rt, createFakeProvider())).outcome.status, 'success');
      const fake = createFakeProvider();
      const seen: PilotRequest[] = [];
      const listening: Provider = { name: fake.name, model: fake.model, next: (req, signal) => (seen.push(req), fake.next(req, signal)) };
      assert.equal((await run(rt, listening)).outcome.status, 'success');
      const system = seen[0]?.system ?? '';
      assert.match(system, new RegExp(PROMPT_HEADING));
      assert.match(system, /xlerobot-lookout/);
      assert.ok(seen[0]?.tools.some((t) => t.name === 'remember'), 'memory is on, so remember is offered');
    } finally {
      await rt.stop();
    }
  });

  it('is not a success when a sighting does not hold, whatever the pilot declares', async () => {
    const rt = runtime();
    const events: TranscriptEvent[] = [];
    try {
      const provider = scripted([
        [{ name: 'look_around', args: {} }],
        // Seed 7's room as XLeRobot sees it: three sightings true, the lamp's made up.
        [{ name: 'report', args: { sightings: [{ thing: 'box', bearing_deg: 86, distance_m: 2.31 }, { thing: 'plant', bearing_deg: 69, distance_m: 1.76 }, { thing: 'sofa', bearing_deg: 47, distance_m: 3.96 }, { thing: 'lamp', bearing_deg: -120, distance_m: 0.5 }] } }],
        [{ name: 'declare_success', args: { reason: 'I reported the lamp, the plant and the sofa.' } }],
      ]);
      const report = await run(rt, provider, events);
      assert.notEqual(report.outcome.status, 'success');
      const refused = events.find((e) => e.type === 'refused');
      assert.ok(refused?.type === 'refused');
      assert.equal(refused.reason, 'not accepted: objects_misreported is 1, needs = 0');
      const result = events.find((e) => e.type === 'verb_result' && e.verb === 'report');
      assert.ok(result?.type === 'verb_result');
      assert.equal(result.summary, '3 of 4 sightings hold; lamp is not 120° right, 0.50 m');
    } finally {
      await rt.stop();
    }
  });
});
