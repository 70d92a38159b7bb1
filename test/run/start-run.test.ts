/**
 * The run's own decisions around a flight: an episode is written only for a run that reached
 * the body, so the next pilot never reads setup errors as "earlier runs".
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Provider } from '../../src/pilot/providers/provider.js';
import { ProviderError } from '../../src/pilot/providers/provider.js';
import type { EpisodeFacts, RunMemory } from '../../src/pilot/run-memory.js';
import { startRun } from '../../src/run/start-run.js';
import { noTtyGate } from '../../src/safety/gate.js';
import { duck } from '../helpers/ducks.js';
import { scripted } from '../helpers/scripted-provider.js';
import { tempDir } from '../helpers/tmp.js';

/** A memory that records the episodes it was asked to write. */
function recordingMemory(): RunMemory & { episodes: EpisodeFacts[] } {
  const episodes: EpisodeFacts[] = [];
  return {
    episodes,
    promptBlock: '',
    summaryLine: 'memory: test',
    verbs: [],
    handle: () => Promise.resolve({ result: { ok: false, summary: 'no' }, events: [] }),
    writeEpisode: (facts) => {
      episodes.push(facts);
      return Promise.resolve({ action: 'episode', detail: { saved: true } });
    },
    close: () => Promise.resolve(),
  };
}

const unreachable: Provider = {
  name: 'openai',
  model: 'm',
  next: () => Promise.reject(new ProviderError('openai: cannot reach http://127.0.0.1:9/v1 (connection refused; is the server running?)')),
};

async function fly(provider: Provider, opts: { robot?: 'microduck:sim2d' | 'microduck:jsonrpc'; signal?: AbortSignal; settings?: Record<string, unknown>; seconds?: number } = {}) {
  const memory = recordingMemory();
  const report = await startRun({
    duck: duck(`robot: ${opts.robot ?? 'microduck:sim2d'}\nverbs: [quack]${opts.seconds !== undefined ? `\nbudgets: { seconds: ${opts.seconds} }` : ''}`),
    robot: opts.robot ?? 'microduck:sim2d',
    seed: 7,
    provider,
    gate: noTtyGate,
    dryRun: false,
    memory,
    transcriptsDir: tempDir(),
    signal: opts.signal ?? new AbortController().signal,
    ...(opts.settings !== undefined ? { bodySettings: opts.settings } : {}),
  });
  return { report, episodes: memory.episodes };
}

describe('an episode is written only for a run that reached the body', () => {
  it('a provider that cannot be reached writes none', async () => {
    const { report, episodes } = await fly(unreachable);
    assert.equal(report.outcome.status, 'error');
    assert.deepEqual(episodes, []);
  });

  it('a serial port that does not exist writes none', async () => {
    const { report, episodes } = await fly(unreachable, { robot: 'microduck:jsonrpc', settings: { port: '/dev/serial/by-id/no-such-duck' } });
    assert.match(report.outcome.reason, /not found/);
    assert.deepEqual(episodes, []);
  });

  it('a run stopped before its first step writes none', async () => {
    const stop = new AbortController();
    stop.abort(new Error('stopped by SIGTERM'));
    const { report, episodes } = await fly(scripted([[{ name: 'quack', args: {} }]]), { signal: stop.signal });
    assert.equal(report.outcome.status, 'interrupted');
    assert.deepEqual(episodes, []);
  });

  it('a pilot that declared at once, without a step, did fly: one is written', async () => {
    const { report, episodes } = await fly(scripted([[{ name: 'declare_failure', args: { reason: 'no cat here' } }]]));
    assert.equal(report.outcome.status, 'failure');
    assert.equal(episodes.length, 1);
  });

  it('a run that spent its seconds on a model that never answered writes none', async () => {
    const { report, episodes } = await fly(scripted(['hang']), { seconds: 1 });
    assert.equal(report.outcome.status, 'budget');
    assert.deepEqual(episodes, []);
  });

  it('a run that performed a verb writes one, whatever its outcome', async () => {
    const { report, episodes } = await fly(scripted([[{ name: 'quack', args: {} }], [{ name: 'declare_failure', args: { reason: 'no cat' } }]]));
    assert.equal(report.outcome.status, 'failure');
    assert.equal(episodes.length, 1);
    assert.deepEqual(episodes[0]?.results, ['quack: quack!']);
  });
});
