/**
 * `quackd run` when a `quackd serve` is running: the service holds the robots, so the run goes
 * through its control socket and this terminal shows it exactly as a local run (the same printer
 * reads the streamed transcript events). A gate is asked here when this is a terminal, and the
 * answer goes back through the socket; Ctrl-C stops the run as it stops a local one.
 */
import type { Readable } from 'node:stream';
import type { Budgets } from '../ducks/duck.js';
import type { RunReport } from '../run/start-run.js';
import { cliUser } from '../runtime/holder.js';
import { ttyGate } from '../safety/gate.js';
import { openService, replyError } from '../service/socket/client.js';
import type { Reply, RunRequest, TorqueRequest } from '../service/socket/protocol.js';
import { RuntimeError } from './errors.js';
import type { Output } from './output.js';
import { printHeader, printWarnings, stepPrinter } from './run-printer.js';
import { robotLabel } from '../runtime/fleet.js';
import { onStopSignals } from './signals.js';

export interface ServiceRun {
  readonly robot: string;
  /** The duck's name (a starter the service knows), or its path with its text. */
  readonly duck: string;
  readonly text?: string;
  readonly goal?: string;
  readonly seed?: number;
  readonly budgets: Partial<Budgets>;
  readonly dryRun: boolean;
  readonly yes: boolean;
  readonly json: boolean;
  /** Played by the script pilot (`quackd do`), not the service's own. */
  readonly script?: boolean;
}

type Stdin = Readable & { readonly isTTY?: boolean };

/** Who answers a gate of a run through the service: --yes opens it; without a terminal here to ask on it stays shut, as in a local run. */
export function serviceGates(yes: boolean, stdin: Stdin): 'yes' | 'ask' | 'deny' {
  return yes ? 'yes' : stdin.isTTY === true ? 'ask' : 'deny';
}

/** The run's report, or undefined when no service answers (the caller runs it here). */
export async function runThroughService(run: ServiceRun, io: Output, env: NodeJS.ProcessEnv, stdin: Stdin): Promise<{ report: RunReport; signalCode: number | undefined } | undefined> {
  const request: RunRequest = {
    op: 'run',
    robot: run.robot,
    duck: run.duck,
    ...(run.text !== undefined ? { text: run.text } : {}),
    ...(run.goal !== undefined ? { goal: run.goal } : {}),
    ...(run.seed !== undefined ? { seed: run.seed } : {}),
    ...(Object.keys(run.budgets).length > 0 ? { budgets: run.budgets } : {}),
    dryRun: run.dryRun,
    gates: serviceGates(run.yes, stdin),
    ...(run.script === true ? { script: true as const } : {}),
    by: cliUser(),
  };
  return followThroughService(request, run.json, io, env, stdin);
}

/**
 * A run the service starts for `request` (a run, a torque switch), shown here as a local run is:
 * its header, its steps, its gates asked on this terminal; undefined when no service answers.
 */
export async function followThroughService(request: RunRequest | TorqueRequest, json: boolean, io: Output, env: NodeJS.ProcessEnv, stdin: Stdin): Promise<{ report: RunReport; signalCode: number | undefined } | undefined> {
  const asking = request.gates === 'ask' && stdin.isTTY === true;
  const print = json ? undefined : stepPrinter(io);
  let report: RunReport | undefined;
  let failure: Reply | undefined;
  // A question open on this terminal, closed when the gate is answered elsewhere (MQTT) or the run stops.
  let question: AbortController | undefined;
  const stop = onStopSignals();
  try {
    const connection = await openService(env, request, (reply) => {
      switch (reply.type) {
        case 'started':
          // As a local run says them: a notice on stderr under --json, the memory line only on screen.
          if (json && reply.run.memory.notice !== undefined) io.err.write(`quackd: ${reply.run.memory.notice}\n`);
          if (!json) for (const line of [reply.run.memory.notice, reply.run.memory.summary]) if (line !== undefined) io.line(io.dim(line));
          if (!json) printHeader(io, reply.run.duck, robotLabel(reply.run.robot, reply.run.key), reply.run.pilot, reply.run.dryRun);
          printWarnings(io, reply.run.warnings ?? [], json);
          break;
        case 'event':
          if (reply.event.type === 'gate') question?.abort();
          print?.(reply.event);
          break;
        case 'gate': {
          if (!asking) break;
          question = new AbortController();
          void ttyGate(stdin, io.err)
            .confirm(reply.question, AbortSignal.any([question.signal, stop.signal]))
            .then((d) => {
              if (d.how === 'tty') connection?.send({ op: 'answer', answer: d.allowed });
            });
          break;
        }
        case 'end':
          report = reply.report;
          break;
        case 'error':
          failure = reply;
          break;
        default:
          break;
      }
    });
    if (connection === undefined) return undefined;
    stop.signal.addEventListener('abort', () => {
      const why = stop.signal.reason instanceof Error ? stop.signal.reason.message.replace(/^stopped by /, '') : 'Ctrl-C';
      connection.send({ op: 'abort', why });
    });
    await connection.closed;
    if (failure?.type === 'error') throw replyError(failure);
    if (report === undefined) throw new RuntimeError(`quackd serve closed ${connection.path} before the run ended`, "'quackd transcript show last' has what it recorded");
    return { report, signalCode: stop.exitCode() };
  } finally {
    question?.abort();
    stop.dispose();
  }
}
