/**
 * Transcript retention on real files in a temp dir: each robot's newest N runs and every run of
 * the last D days stay, the rest go; `quackd transcript prune --dry-run` lists and deletes nothing;
 * the policy comes from the config's `transcripts:` section unless a flag says otherwise.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runIdFor } from '../../src/transcript/writer.js';
import { pruneTranscripts } from '../../src/transcript/retention.js';
import { runCli } from '../helpers/cli.js';
import { writeDuck } from '../helpers/ducks.js';
import { quackd } from '../helpers/quackd.js';
import { serve } from '../helpers/serve.js';
import { startOnTerminal } from '../helpers/terminal.js';
import { tempDir } from '../helpers/tmp.js';

const DAY = 86_400_000;

/** A finished run of `robot` that started `daysAgo` days before `now`, as quackd writes it. */
function writeRun(dir: string, robot: string, duck: string, daysAgo: number, now: number): string {
  const at = new Date(now - daysAgo * DAY);
  const id = runIdFor(duck, at);
  const start = { t: at.toISOString(), run: id, type: 'start', duck, body: robot, provider: 'fake', model: 'scripted', dryRun: false, seed: 1, budgets: {}, verbs: [], confirm: [], quackd: '0', node: 'v20' };
  const end = { t: at.toISOString(), run: id, type: 'end', outcome: 'success', reason: 'ok', steps: 1, llmCalls: 1, seconds: 1 };
  writeFileSync(join(dir, `${id}.jsonl`), `${JSON.stringify(start)}\n${JSON.stringify(end)}\n`, { mode: 0o600 });
  return id;
}

describe('transcript retention', () => {
  it("keeps each robot's newest runs and the last days' runs, and deletes only the rest", () => {
    const dir = tempDir('quackd-keep-');
    const now = Date.parse('2026-12-01T12:00:00Z');
    // kitchen-duck: runs 1..8 days ago; hall-duck: two old runs only.
    const kitchen = [1, 2, 3, 4, 5, 6, 7, 8].map((d) => writeRun(dir, 'microduck:jsonrpc', 'patrol', d + 0.1, now));
    const hall = [40, 50].map((d) => writeRun(dir, 'microduck:sim2d', 'find-and-kick', d, now));
    writeFileSync(join(dir, '20260101-000000-torn.jsonl'), '{"t":"2026-01-01T00:00');
    const policy = { keepRuns: 3, keepDays: 5 };
    const planned = pruneTranscripts(dir, policy, { now: new Date(now), apply: false });
    // Dry: nothing gone yet.
    assert.equal(readdirSync(dir).length, 11);
    // kitchen: the newest 3 and those of the last 5 days stay (1.1 to 4.1 days ago); 5.1 to 8.1 days ago go.
    // hall: its 2 runs are its newest 3, whatever their age. The torn file is its robot's only run.
    assert.deepEqual(planned.map((r) => r.id), [kitchen[7], kitchen[6], kitchen[5], kitchen[4]]);
    assert.equal(planned[0]?.robot, 'microduck:jsonrpc');
    const gone = pruneTranscripts(dir, policy, { now: new Date(now), apply: true });
    assert.deepEqual(gone, planned);
    for (const id of [...kitchen.slice(0, 4), ...hall]) assert.ok(existsSync(join(dir, `${id}.jsonl`)), id);
    for (const id of kitchen.slice(4)) assert.ok(!existsSync(join(dir, `${id}.jsonl`)), id);
    assert.ok(existsSync(join(dir, '20260101-000000-torn.jsonl')));
    // Nothing more to do.
    assert.deepEqual(pruneTranscripts(dir, policy, { now: new Date(now), apply: true }), []);
  });

  it('quackd transcript prune: --dry-run lists what would go; the config sets the policy; flags beat it', async () => {
    const home = tempDir('quackd-home-');
    const dir = join(home, 'transcripts');
    mkdirSync(dir);
    const now = Date.now();
    const ids = [1, 2, 3, 4].map((d) => writeRun(dir, 'microduck:sim2d', 'hello-world', d * 10, now));
    writeFileSync(join(home, 'config.yaml'), 'transcripts:\n  keep_runs: 2\n  keep_days: 15\n');
    const env = { QUACKD_HOME: home };
    assert.match((await quackd(['config', 'check'], { env })).stdout, /runs kept +newest 2 per robot and the last 15 days {2}\(transcripts in .*config\.yaml\)/);
    const dry = await quackd(['transcript', 'prune', '--dry-run'], { env });
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`${ids[3]}.*\\n.*${ids[2]}`));
    assert.match(dry.stdout, /would delete 2 runs \(0\.00 MB\); keeping the newest 2 per robot and the last 15 days \(--dry-run: nothing deleted\)/);
    assert.equal(readdirSync(dir).length, 4);
    const json = await quackd(['transcript', 'prune', '--keep-runs', '3', '--json'], { env });
    assert.deepEqual((JSON.parse(json.stdout) as { pruned: { id: string }[] }).pruned.map((r) => r.id), [ids[3]]);
    assert.deepEqual(readdirSync(dir).sort(), ids.slice(0, 3).map((id) => `${id}.jsonl`).sort());
    const none = await quackd(['transcript', 'prune'], { env });
    assert.match(none.stdout, /^deleted 1 run .*kept the newest 2 per robot and the last 15 days$/m);
    assert.match((await quackd(['transcript', 'prune'], { env })).stdout, /^nothing to prune/);
    const bad = await quackd(['transcript', 'prune', '--keep-runs', '0'], { env });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /keep-runs/);
    writeFileSync(join(home, 'config.yaml'), 'transcripts:\n  keep_run: 2\n');
    const typo = await quackd(['transcript', 'prune'], { env });
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /config\.yaml:2: transcripts: unknown key "keep_run"/);
  });

  it('quackd run applies the policy after the run: the old run goes, the new one stays', async () => {
    const home = tempDir('quackd-home-');
    const dir = join(home, 'transcripts');
    mkdirSync(dir);
    const old = writeRun(dir, 'microduck:sim2d', 'hello-world', 90, Date.now());
    const other = writeRun(dir, 'microduck:jsonrpc', 'patrol', 90, Date.now());
    writeFileSync(join(home, 'config.yaml'), 'transcripts:\n  keep_runs: 1\n  keep_days: 7\n');
    const r = await quackd(['run', 'hello-world', '--local'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const left = readdirSync(dir);
    assert.ok(!left.includes(`${old}.jsonl`), left.join(' '));
    // Another robot's only run is its newest: kept.
    assert.ok(left.includes(`${other}.jsonl`));
    assert.equal(left.length, 2);
  });

  it("counts each robot's runs by its name, and keeps a run waiting at its gate: two runs on den leave hall's gated run whole", async () => {
    const home = tempDir('quackd-home-');
    mkdirSync(join(home, 'ducks'));
    writeDuck(join(home, 'ducks'), 'gated', 'robot: microduck:sim2d\nverbs: [quack]\nconfirm: [quack]\nbudgets: { steps: 3, llm_calls: 5, seconds: 60 }');
    const env = { QUACKD_HOME: home };
    // Two robots of one body: by the body they shared one quota of a run.
    const s = await serve(home, 'pilot: { provider: fake }\nrobots:\n  den: { body: microduck:sim2d }\n  hall: { body: microduck:sim2d }\nmqtt: false\ntranscripts: { keep_runs: 1, keep_days: 0 }\n');
    const gated = startOnTerminal(['run', 'gated', '--robot', 'hall'], 300, env, 60_000);
    try {
      while (!gated.text().includes('confirm? [y/N]')) {
        assert.equal(await Promise.race([gated.exited.then(() => 'ended'), new Promise((r) => setTimeout(r, 20))]), undefined, gated.text());
      }
      for (let i = 0; i < 2; i += 1) {
        const den = await runCli(['run', 'hello-world', '--robot', 'den'], { env });
        assert.equal(den.code, 0, den.stderr);
      }
      // den keeps its newest run only; hall's run at its gate is untouched.
      assert.equal(readdirSync(join(home, 'transcripts')).filter((n) => n.endsWith('.jsonl')).length, 2);
      const yes = await runCli(['confirm', 'hall', 'yes'], { env });
      assert.equal(yes.code, 0, yes.stderr);
      const ended = await gated.exited;
      assert.equal(ended.code, 0, ended.lines.join('\n'));
      const id = /transcript (\S+)$/.exec(ended.lines.at(-1) ?? '')?.[1] ?? '';
      assert.match(id, /-gated$/, ended.lines.join('\n'));
      const shown = await runCli(['transcript', 'show', id], { env });
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, /success/);
    } finally {
      gated.kill();
      s.child.kill('SIGTERM');
      await s.exited;
    }
  });

  it('keeps a run without an end line while its process lives or its file changed lately; a dead one goes', async () => {
    const home = tempDir('quackd-home-');
    const dir = join(home, 'transcripts');
    mkdirSync(dir);
    const now = Date.now();
    const newest = writeRun(dir, 'microduck:sim2d', 'hello-world', 0.5, now);
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    /** A run of den started 10 days ago that never wrote its end line; its file last changed `quietDays` ago. */
    const unfinished = (duck: string, pid: number | undefined, quietDays: number): string => {
      const at = new Date(now - 10 * DAY);
      const id = runIdFor(duck, at);
      const start = { t: at.toISOString(), run: id, type: 'start', duck, body: 'microduck:sim2d', provider: 'fake', model: 'scripted', dryRun: false, seed: 1, budgets: {}, verbs: [], confirm: [], quackd: '0', node: 'v20', ...(pid !== undefined ? { pid } : {}) };
      writeFileSync(join(dir, `${id}.jsonl`), `${JSON.stringify(start)}\n`);
      const quiet = new Date(now - quietDays * DAY);
      utimesSync(join(dir, `${id}.jsonl`), quiet, quiet);
      return id;
    };
    const living = unfinished('at-its-gate', process.pid, 5);
    const lately = unfinished('older-quackd', undefined, 0.5);
    const killed = unfinished('killed', dead, 5);
    const r = await runCli(['transcript', 'prune', '--keep-runs', '1', '--keep-days', '0', '--json'], { env: { QUACKD_HOME: home } });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual((JSON.parse(r.stdout) as { pruned: { id: string }[] }).pruned.map((p) => p.id), [killed]);
    assert.deepEqual(readdirSync(dir).sort(), [newest, living, lately].map((id) => `${id}.jsonl`).sort());
  });
});
