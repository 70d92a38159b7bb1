/**
 * microduck:mujoco holding and falling: between verbs the loop runs the stand policy, so a twin
 * whose servos cannot hold the home pose by themselves (kp 0.6: holding it folds in about 1.5 s)
 * still stands while its pilot thinks; a fall in the settle after a verb is that verb's result
 * (`fell after it, while it settled`), never a walk that "reached its time limit"; a fall between
 * verbs is trouble the run hears: in the transcript, in `status`, and the next verb is refused.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createMujocoBody } from '../../../src/bodies/microduck/mujoco/mujoco-body.js';
import { bundledPolicyDir } from '../../../src/policy/bundled.js';
import type { Provider } from '../../../src/pilot/providers/provider.js';
import { startService } from '../../../src/service/lifecycle.js';
import { readTranscript } from '../../../src/transcript/reader.js';
import { scripted } from '../../helpers/scripted-provider.js';
import { tempDir } from '../../helpers/tmp.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A stand whose home pose folds the knees: the duck tips over within a second on it. */
function tippingStand(): string {
  const dir = join(tempDir('quackd-policy-'), 'stand');
  cpSync(bundledPolicyDir('stand'), dir, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { home: number[] };
  const home = [...manifest.home];
  home[3] = -2.4;
  home[12] = 2.4;
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, home }));
  return dir;
}

describe('microduck:mujoco between verbs', () => {
  it('at pace realtime it stands on its stand policy while nobody asks anything, with servos too weak to hold a pose (kp 0.6)', async () => {
    const body = await createMujocoBody({ seed: 7, settings: { pace: 'realtime', kp: 0.6 } });
    try {
      const tilts: number[] = [];
      for (let i = 0; i < 8; i++) {
        await sleep(500);
        await body.observe();
        tilts.push(body.metrics()['tilt_deg'] ?? 90);
      }
      assert.ok(Math.max(...tilts) < 15, `tilt every 0.5 s: ${tilts.join(', ')}°`);
    } finally {
      await body.close();
    }
  });

  it('a fall in the settle after a verb is that verb’s result: fell, with the tilt', async () => {
    const body = await createMujocoBody({ seed: 7, policies: { stand: tippingStand() } });
    try {
      const r = await body.perform({ verb: 'kick', args: { foot: 'left' } });
      assert.equal(r.ok, false);
      assert.match(r.summary, /^kicked left in \d\.\d s: failed — fell after it, while it settled \(tilted \d+°\)/);
      assert.equal(r.data?.['fell'], true);
      const next = await body.perform({ verb: 'walk', args: { metres: 0.3 } });
      assert.match(next.summary, /failed — fallen: the duck is down/);
    } finally {
      await body.close();
    }
  });

  it('a fall between verbs is heard by the run: a trouble line in the transcript, fell in status, the next verb refused, no success', async () => {
    const home = mkdtempSync(join(tmpdir(), 'quackd-fall-'));
    // kp 0.2: too weak even for the stand; it goes down within a second of opening.
    writeFileSync(join(home, 'config.yaml'), 'robots:\n  weak: { body: microduck:mujoco, pace: realtime, kp: 0.2 }\n');
    const script = scripted([[{ name: 'walk', args: { metres: 0.3 } }], [{ name: 'declare_success', args: { reason: 'walked' } }], [{ name: 'declare_failure', args: { reason: 'down' } }]]);
    // The pilot thinks for 2 s first: the fall comes between verbs, not in the walk.
    const thinking: Provider = { ...script, next: async (request, signal) => (await sleep(script.requests.length === 0 ? 2000 : 0), script.next(request, signal)) };
    const serving = await startService({ env: { QUACKD_HOME: home }, pilot: () => Promise.resolve(thinking) });
    try {
      const service = serving.service;
      const run = await service.run('weak', { duck: 'walker', goal: 'walk a little', gates: 'yes' });
      const report = await run.done;
      const lines = readTranscript(report.transcriptPath).lines;
      const trouble = lines.find((l) => l.type === 'trouble');
      assert.ok(trouble?.type === 'trouble' && trouble.kind === 'fell', JSON.stringify(lines.map((l) => l.type)));
      assert.match(trouble.message, /^fell between verbs \(tilted \d+°\)$/);
      const walk = lines.find((l) => l.type === 'verb_result' && l.verb === 'walk');
      assert.ok(walk?.type === 'verb_result' && !walk.ok && /fallen: the duck is down/.test(walk.summary), JSON.stringify(walk));
      assert.equal(report.outcome.status, 'failure', report.outcome.reason);
      const status = service.status('weak');
      assert.ok(status.fell !== undefined && status.fell.tilt_deg > 30, JSON.stringify(status));
    } finally {
      await serving.stop('the test');
      rmSync(home, { recursive: true, force: true });
    }
  });
});
