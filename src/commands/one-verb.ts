/**
 * What `quackd do` and `quackd torque` share: one verb played as a one-step run in this process
 * (no service holds the robot, or --local), and the outcome printed with its exit code, whether
 * the run was this process's or a service's.
 */
import { numberFlag } from '../cli/args.js';
import { EXIT, UsageError } from '../cli/errors.js';
import type { Invocation } from '../cli/invocation.js';
import type { Output } from '../cli/output.js';
import { printHeader, stepPrinter } from '../cli/run-printer.js';
import { onStopSignals } from '../cli/signals.js';
import { findBody, robotCan, type BodyEntry } from '../bodies/index.js';
import { loadConfigFile } from '../config/file.js';
import { checkDuckForBody } from '../ducks/check.js';
import { parseDuck } from '../ducks/parse.js';
import { readScript } from '../ducks/script.js';
import { createScriptProvider } from '../pilot/providers/script.js';
import type { RunReport } from '../run/start-run.js';
import { robotLabel } from '../runtime/fleet.js';
import { chooseGate } from '../safety/gate.js';
import { askService } from '../service/socket/client.js';
import { exitCodeFor, localRuntime, printReport, resolveRobot } from './run.js';

export interface OneVerb {
  /** The command (`do`, `torque`): its errors are named after it, and so is the run's duck unless `duck` names it. */
  readonly command: string;
  readonly duck?: string;
  readonly robot: string;
  /** The one-line duck for the body the robot turns out to have, its line checked first (throws on a bad one). */
  readonly duckText: (body: BodyEntry) => string;
  readonly seed?: number;
  /** A serial body's port and baud, from the flags. */
  readonly settings: Readonly<Record<string, unknown>>;
  readonly dryRun: boolean;
  readonly yes: boolean;
  readonly json: boolean;
}

/** The body `name` is on a running service: its fleet's robot, else a body key; undefined when no service runs. */
export async function serviceBody(name: string, env: NodeJS.ProcessEnv): Promise<{ body: BodyEntry | undefined; pid: number } | undefined> {
  const status = await askService(env, { op: 'status' });
  if (status === undefined) return undefined;
  if (status.type !== 'status') return { body: findBody(name), pid: 0 };
  const held = status.status.robots.find((r) => r.robot === name || r.key === name);
  return { body: findBody(held?.key ?? name), pid: status.status.service.pid };
}

/** A serial body's port and baud from the flags. */
export function linkSettings(f: { readonly port?: string | undefined; readonly baud?: string | undefined }): Record<string, unknown> {
  return { ...(f.port !== undefined ? { port: f.port } : {}), ...(f.baud !== undefined ? { baud: numberFlag('baud', f.baud, { int: true, min: 1 }) } : {}) };
}

/** --port and --baud are for a run in this process: a service holds its robots' links. */
export function refuseLinkFlags(command: string, f: { readonly port?: string | undefined; readonly baud?: string | undefined }, pid: number): void {
  const local = (['port', 'baud'] as const).find((k) => f[k] !== undefined);
  if (local !== undefined) throw new UsageError(`${command}: --${local} is for a run in this process, and quackd serve (pid ${pid}) holds its robots' links`, 'add --local to run here instead');
}

/** The report, printed; the exit code it means (a signal's own code when one stopped it). */
export function finish(io: Output, report: RunReport, json: boolean, signalCode: number | undefined): number {
  printReport(io, report, json);
  return report.outcome.status === 'interrupted' ? (signalCode ?? EXIT.interrupted) : exitCodeFor(report);
}

/** The verb as a run of this process: the robot from the config file or a body key, a gate asked on this terminal. */
export async function playHere(v: OneVerb, { io, env, stdin }: Invocation): Promise<number> {
  const config = await loadConfigFile(env);
  const runtime = localRuntime(config.config, { 'no-memory': true }, env);
  try {
    const robot = resolveRobot(runtime, v.robot, undefined, { ...v.settings }, v.command);
    const text = v.duckText(robot.entry);
    if (v.seed !== undefined && robot.entry.seeded !== true) throw new UsageError(`${v.command}: --seed picks a simulator's layout; ${robot.name} has none`);
    const duck = parseDuck(text, v.duck ?? v.command, v.duck ?? v.command);
    checkDuckForBody(duck, robot.entry, robotCan(robot.entry, robot.settings));
    readScript(duck);
    const stop = onStopSignals();
    try {
      const report = await runtime.run({
        duck,
        robot,
        seed: v.seed ?? 7,
        provider: createScriptProvider(),
        gate: chooseGate({ yes: v.yes, stdin, stdout: io.err }),
        dryRun: v.dryRun,
        signal: stop.signal,
        ...(v.json ? {} : { onEvent: stepPrinter(io), onMemory: () => printHeader(io, duck, robotLabel(robot.name, robot.key), 'script', v.dryRun) }),
      });
      return finish(io, report, v.json, stop.exitCode());
    } finally {
      stop.dispose();
    }
  } finally {
    await runtime.stop();
  }
}
