/**
 * Flocks across machines: a member that is a robot of a second `quackd serve` (the built bin in a
 * child, with a home of its own), reached through a real mosquitto both sides share. The flock
 * starts its run over `<base>/<robot>/set`, follows it on `event`, answers its kick gate, stops it
 * and has it quack; a member whose service dies (the broker's last will on `bridge/state`) is
 * dropped from the plan, and the flock goes on with the others.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { findDuck } from '../../src/ducks/find.js';
import { parseDuck } from '../../src/ducks/parse.js';
import { openBrokerLink, type BrokerLink } from '../../src/flock/broker-link.js';
import { LocalMember } from '../../src/flock/member.js';
import { planFor } from '../../src/flock/plan.js';
import { RemoteMember } from '../../src/flock/remote-member.js';
import { runFlock } from '../../src/flock/run-flock.js';
import { resolveMqttSettings } from '../../src/mqtt/settings.js';
import { createFakeProvider } from '../../src/pilot/providers/fake.js';
import type { Provider } from '../../src/pilot/providers/provider.js';
import { createRuntime } from '../../src/runtime/runtime.js';
import { noTtyGate } from '../../src/safety/gate.js';
import type { TranscriptLine } from '../../src/transcript/events.js';
import { readTranscript } from '../../src/transcript/reader.js';
import { startLlmServer } from '../helpers/llm-server.js';
import { noMosquitto, startMosquitto } from '../helpers/mosquitto.js';
import { quackd as dispatch } from '../../src/cli/quackd.js';
import { captured, quackd } from '../helpers/quackd.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/tmp.js';

const STARTER = readFileSync(new URL('../../src/ducks/starters/flock-find-ball.duck', import.meta.url), 'utf8');
const flockText = (members: string): string => STARTER.replace(/members: \[.*\]/, `members: ${members}`);

/** A duck file in `home`'s ducks folder: where `quackd run NAME` (and a service's run by name) finds it. */
function putDuck(home: string, name: string, text: string): void {
  mkdirSync(join(home, 'ducks'), { recursive: true });
  writeFileSync(join(home, 'ducks', `${name}.duck`), text);
}

const runLines = (home: string, id: string): TranscriptLine[] => readTranscript(join(home, 'transcripts', `${id}.jsonl`)).lines;
const kicked = (ls: readonly TranscriptLine[]) => ls.some((l) => l.type === 'verb_result' && l.verb === 'kick' && l.ok);

interface FlockJson {
  run: string;
  outcome: string;
  reason: string;
  members: { name: string; where: string; runs: string[]; outcome?: string }[];
}

describe('flock members behind another quackd serve, over a real mosquitto', { skip: noMosquitto }, () => {
  it('one local and one remote member: exactly one kicks, the other quacks, each run in its own home; a remote member alone kicks through its gate', async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    const hall = tempDir('quackd-flock-hall-');
    const here = tempDir('quackd-flock-here-');
    // The other Pi runs the flock duck by name: it has its own copy, as a person would put there.
    for (const home of [hall, here]) {
      putDuck(home, 'duo', flockText('[microduck:sim2d, remote:quackd-hall/den]'));
      putDuck(home, 'solo', flockText('[remote:quackd-hall/den]'));
    }
    await serve(hall, `robots:\n  den: { body: microduck:sim2d }\nmqtt:\n  url: ${broker.url}\n  base_topic: quackd-hall\n  homeassistant: false\n`);
    writeFileSync(join(here, 'config.yaml'), `mqtt:\n  url: ${broker.url}\n`);

    const r = await quackd(['run', 'duo', '--json'], { env: { QUACKD_HOME: here }, timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const report = JSON.parse(r.stdout) as FlockJson;
    assert.equal(report.outcome, 'success', report.reason);
    const [local, remote] = report.members;
    assert.equal(remote?.name, 'remote:quackd-hall/den');
    assert.equal(remote?.where, `quackd-hall/den on mqtt://127.0.0.1:${broker.port}`);
    // Each member's runs are in the home of the quackd that ran them.
    const localRuns = (local?.runs ?? []).map((id) => runLines(here, id));
    const remoteRuns = (remote?.runs ?? []).map((id) => runLines(hall, id));
    assert.ok(remoteRuns.length >= 1, 'the remote member ran');
    const kickers = [localRuns.some(kicked), remoteRuns.some(kicked)].filter(Boolean);
    assert.equal(kickers.length, 1, 'exactly one member kicked');
    const [stoppedRuns, other] = localRuns.some(kicked) ? [remoteRuns, remote] : [localRuns, local];
    assert.equal(stoppedRuns.length, 2, `${other?.name ?? ''}: its part, then its quack`);
    assert.equal(stoppedRuns[0]?.find((l) => l.type === 'end')?.type === 'end' ? 'ended' : '', 'ended');
    assert.ok(stoppedRuns[1]?.some((l) => l.type === 'verb_result' && l.verb === 'quack' && l.ok), 'the stopped member quacked');
    assert.equal(other?.outcome, 'success');
    // The remote member's seed came from the flock (the second member: 7 + 1), its world a simulator's.
    const remoteStart = remoteRuns[0]?.find((l) => l.type === 'start');
    assert.equal(remoteStart?.type === 'start' ? `${remoteStart.duck} seed ${remoteStart.seed}` : '', 'duo seed 8');

    // Alone, the remote member is the finder when it asks to kick: the flock answers its gate over MQTT.
    const solo = await quackd(['run', 'solo', '--json'], { env: { QUACKD_HOME: here }, timeoutMs: 60_000 });
    assert.equal(solo.code, 0, solo.stdout + solo.stderr);
    const soloReport = JSON.parse(solo.stdout) as FlockJson;
    assert.match(soloReport.reason, /^remote:quackd-hall\/den found the ball and kicked it/);
    const ran = runLines(hall, soloReport.members[0]?.runs[0] ?? '');
    const gate = ran.find((l) => l.type === 'gate');
    // The flock's answer came through an external broker, which vouches for no person: a channel's.
    assert.equal(gate?.type === 'gate' ? `${gate.verb} ${String(gate.allowed)} ${gate.how}` : '', 'kick true channel');
    assert.ok(kicked(ran));
    // Its sighting came over MQTT with the step's measurements: the coordinator saw it see the ball.
    const flockLines = runLines(here, soloReport.run);
    const finder = flockLines.find((l) => l.type === 'flock' && l.what === 'finder');
    assert.match(finder?.type === 'flock' ? `${finder.member}: ${finder.reason ?? ''}` : '', /^remote:quackd-hall\/den: saw the ball \(/);

    // A kick the duck also leaves to a person: asked on the coordinator's terminal as a local
    // member's step is, its step line (MQTT carries the question as data), then the member's name.
    for (const home of [hall, here]) putDuck(home, 'careful-solo', flockText('[remote:quackd-hall/den]').replace('verbs: [', 'confirm: [kick]\nverbs: ['));
    const c = captured({ input: 'y\n', env: { QUACKD_HOME: here } });
    const stdin = Object.assign(c.invocation.stdin, { isTTY: true });
    const careful = await dispatch(['run', 'careful-solo', '--json'], { ...c.invocation, stdin });
    assert.equal(careful, 0, c.stdout() + c.stderr());
    assert.match(c.stderr(), /^ {2}\d+ {2}kick \S+ \(remote:quackd-hall\/den\) — confirm\? \[y\/N\] /m);
  });

  it('a remote member whose service goes offline is dropped from the plan, and the flock goes on', async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    // The remote robot's pilot never answers, so its run is still going when its Pi dies.
    const llm = await startLlmServer({ fallback: () => ({ kind: 'hang' }) });
    after(() => llm.close());
    const attic = tempDir('quackd-flock-attic-');
    const text = flockText('[microduck:sim2d, remote:quackd-attic/den]');
    putDuck(attic, 'duo', text);
    const atticServe = await serve(attic, `robots:\n  den: { body: microduck:sim2d }\nmqtt:\n  url: ${broker.url}\n  base_topic: quackd-attic\n  homeassistant: false\npilot:\n  provider: openai\n  base_url: ${llm.url}/v1\n  model: m\n`);

    const duck = parseDuck(text, 'duo.duck', 'duo');
    assert.ok(duck.flock !== undefined);
    const here = tempDir('quackd-flock-here-');
    const runtime = createRuntime({ transcriptsDir: join(here, 'transcripts') });
    after(() => runtime.stop());
    const settings = resolveMqttSettings({ url: broker.url }, here);
    assert.ok(settings !== undefined);
    let link: Promise<BrokerLink> | undefined;
    after(async () => (await link)?.close());
    // The local duck waits to start its search until the remote one is gone: the flock must go on without it.
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    const fake = createFakeProvider();
    const waiting: Provider = { name: fake.name, model: fake.model, next: async (request, signal) => (await released, fake.next(request, signal)) };
    const robot = runtime.robot('microduck:sim2d');
    const members = [
      new LocalMember('microduck:sim2d', { runtime, robot, pilot: () => Promise.resolve(waiting), dryRun: false }),
      new RemoteMember('remote:quackd-attic/den', 'quackd-attic', 'den', () => (link ??= openBrokerLink(settings))),
    ];
    const report = await runFlock({
      duck: { ...duck, flock: duck.flock },
      members,
      plan: planFor(duck.flock.plan, members.map((m) => m.name)),
      quackDuck: findDuck('hello-world'),
      seed: 7,
      transcriptsDir: join(here, 'transcripts'),
      gate: noTtyGate,
      dryRun: false,
      signal: new AbortController().signal,
      onNews: (news) => {
        if (news.kind !== 'line' || news.line.member !== 'remote:quackd-attic/den') return;
        // Its run is under way on the other Pi (its pilot has been asked): the Pi dies, and the
        // broker says so by the service's last will.
        if (news.line.what === 'run') {
          const poll = setInterval(() => {
            if (llm.requests.length === 0) return;
            clearInterval(poll);
            atticServe.child.kill('SIGKILL');
          }, 10);
        }
        if (news.line.what === 'drop') release();
      },
    });
    assert.equal(report.outcome.status, 'success', report.outcome.reason);
    assert.match(report.outcome.reason, /^microduck:sim2d found the ball and kicked it/);
    const dropped = report.members.find((m) => m.name === 'remote:quackd-attic/den');
    assert.equal(dropped?.dropped, 'quackd-attic/den went offline (its quackd serve)');
    assert.equal(dropped?.runs.length, 1, 'its run was started, then it was gone');

    // The next flock finds it offline (the last will is retained) and goes on without it from the start.
    const again = [new LocalMember('microduck:sim2d', { runtime, robot, pilot: () => Promise.resolve(createFakeProvider()), dryRun: false }), new RemoteMember('remote:quackd-attic/den', 'quackd-attic', 'den', () => (link ??= openBrokerLink(settings)))];
    const next = await runFlock({ duck: { ...duck, flock: duck.flock }, members: again, plan: planFor(duck.flock.plan, again.map((m) => m.name)), quackDuck: findDuck('hello-world'), seed: 7, transcriptsDir: join(here, 'transcripts'), gate: noTtyGate, dryRun: false, signal: new AbortController().signal });
    assert.equal(next.outcome.status, 'success', next.outcome.reason);
    const absent = next.members.find((m) => m.name === 'remote:quackd-attic/den');
    assert.deepEqual([absent?.dropped, absent?.runs.length], ['quackd-attic/den is offline', 0]);
  });

  it('a remote member stopped before its service has named the run stops before its first step', async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    const cellar = tempDir('quackd-flock-cellar-');
    await serve(cellar, `robots:\n  den: { body: microduck:sim2d }\nmqtt:\n  url: ${broker.url}\n  base_topic: quackd-cellar\n  homeassistant: false\n`);
    const here = tempDir('quackd-flock-here-');
    const settings = resolveMqttSettings({ url: broker.url }, here);
    assert.ok(settings !== undefined);
    let link: Promise<BrokerLink> | undefined;
    after(async () => (await link)?.close());
    // The service's answer (the run's id) is slow to come back, as over a busy broker: its steps must not go on meanwhile.
    const slowAnswers = (l: BrokerLink): BrokerLink => ({ ...l, request: (...args) => l.request(...args).then(async (answer) => (await new Promise((r) => setTimeout(r, 300)), answer)) });
    const member = new RemoteMember('remote:quackd-cellar/den', 'quackd-cellar', 'den', () => (link ??= openBrokerLink(settings).then(slowAnswers)));
    let ended: (id: string | undefined) => void = () => undefined;
    const end = new Promise<string | undefined>((resolve) => (ended = resolve));
    const steps: string[] = [];
    const lost: string[] = [];
    const opened = await member.open({ started: () => undefined, step: (s) => steps.push(s.label), ask: () => Promise.resolve({ allowed: false, how: 'no-tty', reason: 'no' }), ended: (_o, id) => ended(id), lost: (why) => lost.push(why) });
    assert.equal(opened, undefined);
    // The flock's finder saw the ball while this member's run request was still on its way.
    member.start({ duck: findDuck('find-and-kick') });
    member.stop('hall found the ball first');
    const runId = await end;
    assert.ok(runId !== undefined);
    assert.deepEqual(lost, []);
    await member.close();
    const lines = runLines(cellar, runId);
    const last = lines.at(-1);
    assert.equal(last?.type === 'end' ? last.outcome : '', 'interrupted');
    assert.deepEqual(lines.filter((l) => l.type === 'verb_result'), [], 'nothing moved');
    assert.deepEqual(steps, []);
  });

  it('a broker that shuts down is blamed for the members it takes, not their services', async () => {
    const broker = await startMosquitto();
    after(() => broker.stop());
    const llm = await startLlmServer({ fallback: () => ({ kind: 'hang' }) });
    after(() => llm.close());
    const loft = tempDir('quackd-flock-loft-');
    await serve(loft, `robots:\n  den: { body: microduck:sim2d }\nmqtt:\n  url: ${broker.url}\n  base_topic: quackd-loft\n  homeassistant: false\npilot:\n  provider: openai\n  base_url: ${llm.url}/v1\n  model: m\n`);
    const settings = resolveMqttSettings({ url: broker.url }, tempDir('quackd-flock-here-'));
    assert.ok(settings !== undefined);
    let link: Promise<BrokerLink> | undefined;
    after(async () => (await link)?.close());
    const member = new RemoteMember('remote:quackd-loft/den', 'quackd-loft', 'den', () => (link ??= openBrokerLink(settings)));
    let lost: (why: string) => void = () => undefined;
    const gone = new Promise<string>((resolve) => (lost = resolve));
    assert.equal(await member.open({ started: () => undefined, step: () => undefined, ask: () => Promise.resolve({ allowed: false, how: 'no-tty', reason: 'no' }), ended: () => undefined, lost }), undefined);
    member.start({ duck: findDuck('find-and-kick') });
    while (llm.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    // mosquitto, stopped as systemd stops it, sends the services' last wills on its way down.
    await broker.stop();
    assert.equal(await gone, `the connection to the broker ${settings.broker.kind === 'external' ? settings.broker.url : ''} closed`);
    await member.close();
  });
});

