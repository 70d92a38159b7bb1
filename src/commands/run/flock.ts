/**
 * `quackd run FLOCK`: a flock duck from the terminal. Checks every member before anything runs
 * (a robot that is not in the fleet, a body that lacks a verb, a remote member with MQTT off),
 * makes the members (robots of this process's runtime, or of another Pi's service over the
 * broker), hands them to src/flock/run-flock.ts and prints what the flock says as it goes.
 */
import { dirname } from 'node:path';
import { numberFlag } from '../../cli/args.js';
import { EXIT, InputError, UsageError } from '../../cli/errors.js';
import { fitLine } from '../../cli/fit.js';
import type { Invocation } from '../../cli/invocation.js';
import { printable, type Output } from '../../cli/output.js';
import { onStopSignals } from '../../cli/signals.js';
import { loadConfigFile } from '../../config/file.js';
import { userDucksDir } from '../../config/paths.js';
import { robotCan } from '../../bodies/index.js';
import { checkDuckForBody } from '../../ducks/check.js';
import type { Duck } from '../../ducks/duck.js';
import { findDuck } from '../../ducks/find.js';
import { openBrokerLink, type BrokerLink } from '../../flock/broker-link.js';
import { LocalMember, type Member } from '../../flock/member.js';
import { planFor } from '../../flock/plan.js';
import { RemoteMember } from '../../flock/remote-member.js';
import { askService } from '../../service/socket/client.js';
import { flockSeconds, runFlock, type FlockNews, type FlockReport } from '../../flock/run-flock.js';
import { QUACK_DUCK, type FlockMember, type FlockSpec } from '../../flock/spec.js';
import { resolveMqttSettings, type MqttSettings } from '../../mqtt/settings.js';
import { RobotSettingsError, UnknownRobot, robotLabel, type Robot } from '../../runtime/fleet.js';
import type { Runtime } from '../../runtime/runtime.js';
import { chooseGate } from '../../safety/gate.js';
import { plural } from '../../text/plural.js';
import { exitCodeFor, localRuntime, pilotFor, withBudgets, type RunFlags } from '../run.js';

type FlockDuck = Duck & { readonly flock: FlockSpec };

/** A local member's robot: the fleet's, renamed `key#n` when a simulator's key is written n times. */
function robotOf(runtime: Runtime, duck: FlockDuck, m: FlockMember & { readonly ref: { readonly kind: 'local' } }): Robot {
  try {
    const robot = runtime.robot(m.ref.robot);
    return m.name === m.ref.robot ? robot : { ...robot, name: m.name };
  } catch (err) {
    const at = `${duck.source}:${m.line}: flock.members: `;
    if (err instanceof UnknownRobot) throw new InputError(`${at}${err.message}`, "'quackd config check' lists the fleet (robots:), 'quackd bodies' the body keys");
    if (err instanceof RobotSettingsError) throw new InputError(`${at}${err.robot}: ${err.message}`, 'set it under robots: in config.yaml');
    throw err;
  }
}

function printNews(io: Output, width: number): (news: FlockNews) => void {
  const row = (member: string, text: string, paint: (s: string) => string = (s) => s): void => io.line(fitLine(`  ${printable(member).padEnd(width)}  ${paint(printable(text))}`, io.width(), width + 4));
  return (news) => {
    if (news.kind === 'step') return row(news.member, `${String(news.step ?? '').padStart(3)}  ${news.label.padEnd(18)} ${news.summary}`, news.ok ? undefined : io.yellow);
    const l = news.line;
    switch (l.what) {
      case 'member':
        return row(l.member, `on ${l.where ?? '?'}${l.seed !== undefined ? ` · seed ${l.seed}` : ''}`, io.dim);
      case 'run':
        return row(l.member, `run ${l.memberRun ?? '?'} (${l.duck ?? '?'})`, io.dim);
      case 'finder':
        return row(l.member, `finder: ${l.reason ?? ''}`, io.bold);
      case 'allow':
        return row(l.member, `${l.verb ?? ''} allowed (the finder's)`, io.dim);
      case 'deny':
        return row(l.member, `${l.verb ?? ''} denied: ${l.reason ?? ''}`, io.yellow);
      case 'stop':
        return row(l.member, `stopped: ${l.reason ?? ''}`, io.yellow);
      case 'quack':
        return row(l.member, `quacks (${l.duck ?? QUACK_DUCK})`);
      case 'drop':
        return row(l.member, `dropped: ${l.reason ?? ''}`, io.yellow);
      case 'member_end':
        return row(l.member, `${l.outcome ?? '?'} — ${l.reason ?? ''}`, io.dim);
    }
  };
}

function printFlockOutcome(io: Output, report: FlockReport): void {
  const good = report.outcome.status === 'success';
  const dry = report.dryRun ? ' (dry run: nothing saved)' : '';
  const stats = `${plural(report.members.length, 'member')}, ${report.seconds.toFixed(1)} s`;
  io.line(fitLine(`${good ? io.green(io.ok) : io.red(io.fail)} ${report.outcome.status}${dry} — ${printable(report.outcome.reason)} · ${stats} · transcript ${report.runId}`, io.width(), 2));
}

/**
 * A local member runs in this process: a robot a running service holds would be driven by two
 * controllers at once, and `quackd stop` (which asks the service) would not reach this run.
 */
async function refuseServed(env: NodeJS.ProcessEnv, robots: readonly string[], duck: FlockDuck): Promise<void> {
  if (robots.length === 0) return;
  const status = await askService(env, { op: 'status' });
  if (status?.type !== 'status') return;
  const held = new Set(status.status.robots.map((r) => r.robot));
  const served = robots.filter((r) => held.has(r));
  if (served.length === 0) return;
  const first = served[0] ?? '';
  throw new UsageError(
    `run: ${served.map((r) => printable(r)).join(', ')} ${served.length > 1 ? 'are' : 'is'} held by quackd serve (pid ${status.status.service.pid}), and ${duck.name} would drive ${served.length > 1 ? 'them' : 'it'} from here, out of reach of 'quackd stop'`,
    `in flock.members, name ${served.length > 1 ? 'each' : 'it'} remote:${printable(first)} (the service runs it, over MQTT), stop the service, or add --local`,
  );
}

export async function runFlockDuck(given: FlockDuck, f: RunFlags, { io, env, stdin }: Invocation): Promise<number> {
  const spec = given.flock;
  const where = `${given.source}:${spec.line}`;
  if (f.robot !== undefined) throw new UsageError(`run: --robot: ${given.name} is a flock, and its robots are its flock.members (${where})`, 'write your own flock duck to change them');
  const setting = (['port', 'baud'] as const).find((k) => f[k] !== undefined);
  if (setting !== undefined) throw new UsageError(`run: --${setting} is for one robot; a flock's members take theirs from robots: in config.yaml`);
  const dryRun = f['dry-run'] === true;
  const remote = spec.members.find((m) => m.ref.kind === 'remote');
  if (dryRun && remote !== undefined) throw new UsageError(`run: --dry-run cannot reach ${remote.name}: a quackd serve runs a duck for real when asked over MQTT`);
  const duck: FlockDuck = { ...withBudgets(given, f), flock: spec };
  const json = f.json === true;
  const seed = numberFlag('seed', f.seed, { int: true, min: 0, max: 2 ** 32 - 1 }) ?? 7;
  const quackDuck = findDuck(QUACK_DUCK, userDucksDir(env));
  const config = await loadConfigFile(env);
  let mqtt: MqttSettings | undefined;
  if (remote !== undefined) {
    mqtt = resolveMqttSettings(config.config.mqtt, dirname(config.path));
    if (mqtt === undefined) throw new InputError(`${given.source}:${remote.line}: flock.members: ${remote.name} is reached over MQTT, but mqtt: is off in ${config.path}`);
  }
  const provider = await pilotFor(f, env);
  const runtime = localRuntime(config.config, f, env);
  let link: Promise<BrokerLink> | undefined;
  const broker = (settings: MqttSettings) => () => (link ??= openBrokerLink(settings));
  try {
    const taken = new Map<string, string>();
    const members: Member[] = spec.members.map((m) => {
      if (m.ref.kind === 'remote') {
        if (mqtt === undefined) throw new Error('unreachable: a remote member without MQTT settings');
        return new RemoteMember(m.name, m.ref.base ?? mqtt.baseTopic, m.ref.robot, broker(mqtt));
      }
      const robot = robotOf(runtime, duck, { ...m, ref: m.ref });
      // A key that means a robot of the fleet and that robot's name are one robot, which runs one duck at a time.
      const other = taken.get(robot.name);
      if (other !== undefined) throw new InputError(`${given.source}:${m.line}: flock.members: ${m.name} and ${other} are one robot, ${robotLabel(robot.name, robot.key)}: name each robot once`);
      taken.set(robot.name, m.name);
      const can = robotCan(robot.entry, robot.settings);
      checkDuckForBody(duck, robot.entry, can);
      checkDuckForBody(quackDuck, robot.entry, can);
      return new LocalMember(m.name, { runtime, robot, pilot: () => pilotFor(f, env), dryRun });
    });
    if (f.local !== true) await refuseServed(env, [...taken.keys()], given);
    if (!json) {
      const { steps, llm_calls, seconds } = duck.budgets;
      const pilot = provider.name === 'fake' ? 'fake' : `${provider.name} ${provider.model}`;
      io.line(fitLine(`${io.bold(duck.name)} · plan ${spec.plan} · ${plural(members.length, 'member')} · pilot ${pilot} · each ${plural(steps, 'step')}, ${plural(llm_calls, 'call')}, ${seconds} s · flock ${flockSeconds(duck, quackDuck)} s${dryRun ? ' · dry run' : ''}`, io.width(), 2));
    }
    const stop = onStopSignals();
    try {
      const report = await runFlock({
        duck,
        members,
        plan: planFor(spec.plan, members.map((m) => m.name)),
        quackDuck,
        seed,
        transcriptsDir: runtime.transcriptsDir,
        // The question goes to stderr: stdout may be a pipe (--json) while a person is at the keyboard.
        gate: chooseGate({ yes: f.yes === true, stdin, stdout: io.err }),
        dryRun,
        signal: stop.signal,
        ...(json ? {} : { onNews: printNews(io, Math.max(...members.map((m) => m.name.length))) }),
      });
      if (json) {
        const m = report.members.map((r) => ({ name: r.name, where: r.where, runs: r.runs, ...(r.outcome !== undefined ? { outcome: r.outcome.status, reason: r.outcome.reason } : {}), ...(r.dropped !== undefined ? { dropped: r.dropped } : {}) }));
        io.line(JSON.stringify({ ended: new Date().toISOString(), run: report.runId, duck: report.duck, plan: report.plan, outcome: report.outcome.status, reason: report.outcome.reason, seconds: report.seconds, dryRun: report.dryRun, transcript: report.transcriptPath, members: m }));
      } else {
        printFlockOutcome(io, report);
      }
      return report.outcome.status === 'interrupted' ? (stop.exitCode() ?? EXIT.interrupted) : exitCodeFor(report);
    } finally {
      stop.dispose();
    }
  } finally {
    await runtime.stop();
    await link?.then((l) => l.close()).catch(() => undefined);
  }
}
