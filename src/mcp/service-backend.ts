/**
 * serve-mcp through a running `quackd serve`: the service holds the hardware, so every tool asks it
 * over its control socket (src/service/socket/protocol.ts) instead of opening a serial port here.
 * A run is one connection: its events and gates come back on it, a driven run's calls go out on
 * it (`call`, answered by `step`), and closing it stops the run.
 */
import { DEFAULT_BODY, findBody, listBodies, type RobotCan } from '../bodies/index.js';
import { RuntimeError } from '../errors.js';
import { RelayBusy, type RelayStep } from '../pilot/providers/relay.js';
import type { RunReport } from '../run/start-run.js';
import { UnknownRobot } from '../runtime/fleet.js';
import type { RunBy } from '../runtime/holder.js';
import type { MemoryAnswer, MemoryAsk, RobotStatus } from '../service/api.js';
import { askService, openService, replyError, type Connection } from '../service/socket/client.js';
import type { Reply, Request } from '../service/socket/protocol.js';
import { didYouMean } from '../text/suggest.js';
import type { TranscriptExcerpt } from '../transcript/excerpt.js';
import type { TranscriptSummary } from '../transcript/reader.js';
import type { Backend, Observed, RunAsk, RunHandle } from './backend.js';

const gone = (): RuntimeError => new RuntimeError('quackd serve stopped answering on its control socket', "'quackd status' says whether it runs");

export class ServiceBackend implements Backend {
  private readonly runs = new Set<RunHandle>();

  constructor(
    private readonly env: NodeJS.ProcessEnv,
    readonly where: string,
  ) {}

  private async ask<T extends Reply['type']>(request: Request, type: T): Promise<Extract<Reply, { type: T }>> {
    const reply = await askService(this.env, request);
    if (reply === undefined) throw gone();
    if (reply.type === 'error') throw replyError(reply);
    if (reply.type !== type) throw new RuntimeError(`quackd serve answered "${reply.type}" to "${request.op}": is it an older quackd?`);
    return reply as Extract<Reply, { type: T }>;
  }

  async robots(): Promise<readonly RobotStatus[]> {
    const { robots } = (await this.ask({ op: 'status' }, 'status')).status;
    return robots.length > 0 ? robots : [{ robot: DEFAULT_BODY, key: DEFAULT_BODY, activity: 'idle' }];
  }

  async status(name: string): Promise<RobotStatus> {
    const robots = await this.robots();
    const found = robots.find((r) => r.robot === name) ?? robots.find((r) => r.key === name);
    if (found !== undefined) return found;
    // A body key the fleet does not name is a robot of its own, as `quackd run --robot KEY` has it.
    const body = findBody(name);
    if (body !== undefined) return { robot: body.key, key: body.key, activity: 'idle' };
    throw new UnknownRobot(`unknown robot "${name}"${didYouMean(name, [...robots.map((r) => r.robot), ...listBodies().map((b) => b.key)])}`);
  }

  async observe(robot: string, by: RunBy): Promise<Observed> {
    const { robot: name, key, perRun, observation } = await this.ask({ op: 'observe', robot, by }, 'observation');
    return { robot: name, key, perRun, observation };
  }

  async can(robot: string): Promise<RobotCan> {
    return (await this.ask({ op: 'can', robot }, 'can')).can;
  }

  async memory(robot: string, ask: MemoryAsk): Promise<MemoryAnswer> {
    return (await this.ask({ op: 'memory', robot, ask }, 'memory')).answer;
  }

  async transcripts(limit: number): Promise<readonly TranscriptSummary[]> {
    return (await this.ask({ op: 'transcripts', limit }, 'transcripts')).runs;
  }

  async transcript(id: string): Promise<{ readonly id: string } & TranscriptExcerpt> {
    const { id: found, lines, gap } = await this.ask({ op: 'transcript', id }, 'transcript');
    return gap === undefined ? { id: found, lines } : { id: found, lines, gap };
  }

  start(ask: RunAsk): Promise<RunHandle> {
    return new Promise<RunHandle>((resolve, reject) => {
      let connection: Connection | undefined;
      let handle: RunHandle | undefined;
      let report: RunReport | undefined;
      let pending: { resolve(step: RelayStep | undefined): void; reject(err: unknown): void } | undefined;
      let settle: (report: RunReport) => void = () => undefined;
      const done = new Promise<RunReport>((r) => (settle = r));
      const answer = (step: RelayStep | undefined): void => {
        const p = pending;
        pending = undefined;
        p?.resolve(step);
      };
      const onReply = (reply: Reply): void => {
        switch (reply.type) {
          case 'started': {
            const run = reply.run;
            handle = {
              run,
              done,
              submit: (name, args) => {
                if (report !== undefined) return Promise.resolve(undefined);
                if (pending !== undefined) return Promise.reject(new RelayBusy());
                return new Promise((res, rej) => {
                  pending = { resolve: res, reject: rej };
                  connection?.send({ op: 'call', name, args });
                });
              },
              stop: (why) => connection?.send({ op: 'abort', why: why.slice(0, 40) }),
            };
            this.runs.add(handle);
            resolve(handle);
            break;
          }
          case 'event':
            ask.onEvent?.(reply.event);
            break;
          case 'gate':
            ask.onGate?.(reply.question, reply.verb, (allowed, how) => connection?.send({ op: 'answer', answer: allowed, how: how === 'unasked' ? 'unasked' : 'person' }));
            break;
          case 'step':
            answer(reply.step);
            break;
          case 'end':
            report = reply.report;
            settle(report);
            answer(undefined);
            break;
          case 'error':
            if (handle === undefined) reject(replyError(reply));
            else if (pending !== undefined) {
              const p = pending;
              pending = undefined;
              p.reject(replyError(reply));
            }
            break;
          default:
            break;
        }
      };
      const request: Request = {
        op: 'run',
        robot: ask.robot,
        duck: ask.duck,
        ...(ask.text !== undefined ? { text: ask.text } : {}),
        gates: ask.gates,
        by: { door: ask.by.door, who: ask.by.who.slice(0, 200) },
        ...(ask.drive !== undefined ? { drive: { client: ask.drive.client.slice(0, 200) } } : {}),
      };
      openService(this.env, request, onReply).then(
        (c) => {
          if (c === undefined) return reject(gone());
          connection = c;
          void c.closed.then(() => {
            if (handle === undefined) reject(gone());
            else this.runs.delete(handle);
            // The service went away mid-run (it stopped, it crashed): the run is over for us.
            if (report === undefined) {
              report = { runId: handle?.run.runId ?? '', transcriptPath: handle?.run.transcriptPath ?? '', duck: handle?.run.duck.name ?? ask.duck, robot: handle?.run.key ?? DEFAULT_BODY, outcome: { status: 'error', reason: 'quackd serve closed the connection before the run ended' }, steps: 0, llmCalls: 0, seconds: 0, usage: { inputTokens: 0, outputTokens: 0 }, dryRun: false };
              settle(report);
            }
            answer(undefined);
          });
        },
        (err: unknown) => reject(err),
      );
    });
  }

  async close(why: string): Promise<void> {
    const runs = [...this.runs];
    for (const run of runs) run.stop(why);
    await Promise.all(runs.map((r) => r.done));
  }
}
