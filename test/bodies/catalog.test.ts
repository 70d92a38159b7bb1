/**
 * The body catalog tells the truth: each simulated or mocked body performs every verb it lists
 * (never "not a verb of"), measures every metric it lists, and `quackd bodies` shows both. The
 * physics twin (seconds to load) and the real Microduck (hardware) are tested in their own files.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Intent } from '../../src/bodies/body.js';
import { listBodies } from '../../src/bodies/index.js';
import { quackd } from '../helpers/quackd.js';

/** An intent each verb may safely be tried with in any simulated room. */
const TRY: Readonly<Record<string, Intent>> = {
  search_scan: { verb: 'search_scan', args: {} },
  turn: { verb: 'turn', args: { degrees: 20 } },
  walk: { verb: 'walk', args: { metres: 0.1 } },
  drive: { verb: 'drive', args: { metres: 0.1 } },
  kick: { verb: 'kick', args: { foot: 'right' } },
  quack: { verb: 'quack', args: {} },
  torque: { verb: 'torque', args: { on: false } },
  look: { verb: 'look', args: { yaw: 20, pitch: 10 } },
  look_around: { verb: 'look_around', args: {} },
  turn_body: { verb: 'turn_body', args: { yaw: 20 } },
  antennas: { verb: 'antennas', args: { left: 20, right: -20 } },
  report: { verb: 'report', args: { sightings: [{ thing: 'sofa', bearing_deg: 0, distance_m: 2 }] } },
};

const SIMS = ['microduck:sim2d', 'reachy-mini:mock', 'xlerobot:sim', 'alohamini:sim', 'toddlerbot:sim'];

describe('the body catalog', () => {
  for (const key of SIMS) {
    it(`${key} performs every verb it lists and measures every metric it lists`, async () => {
      const entry = listBodies().find((b) => b.key === key);
      assert.ok(entry !== undefined);
      const body = await entry.load({ seed: 5 });
      try {
        for (const verb of entry.verbs) {
          const intent = TRY[verb];
          assert.ok(intent !== undefined, `no trial intent for ${verb}`);
          const result = await body.perform(intent);
          assert.doesNotMatch(result.summary, /is not a verb of/, `${key} lists ${verb}`);
        }
        await body.observe();
        assert.deepEqual(Object.keys(body.metrics()).sort(), [...entry.metrics].sort());
      } finally {
        await body.close();
      }
    });
  }

  it('quackd bodies lists every body with its verbs and what it measures', async () => {
    const json = await quackd(['bodies', '--json']);
    assert.equal(json.code, 0, json.stderr);
    const listed = JSON.parse(json.stdout) as { key: string; verbs: string[]; metrics: string[] }[];
    assert.deepEqual(listed.map((b) => b.key), listBodies().map((b) => b.key));
    const reachy = listed.find((b) => b.key === 'reachy-mini:mock');
    assert.deepEqual(reachy?.verbs, ['look', 'turn_body', 'antennas', 'look_around', 'report', 'quack']);
    assert.deepEqual(reachy?.metrics, ['objects_seen', 'objects_reported', 'objects_misreported', 'quacks']);
    const text = await quackd(['bodies']);
    assert.match(text.stdout, /^toddlerbot:sim +ToddlerBot in the lookout room/m);
    assert.match(text.stdout, /^ {2}verbs +look_around, look, turn, walk, report, quack$/m);
    assert.match(text.stdout, /^ {2}verbs +look_around, turn, drive, report, quack$/m);
  });
});
