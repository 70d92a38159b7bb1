/**
 * The control socket: the CLI's way into the running service over SSH (`quackd status`, `stop`,
 * `run`, `transcript follow`, `health`), and `quackd serve-mcp`'s (observe, memory, transcripts,
 * runs it pilots). A unix socket in the data directory, the owner's alone
 * (0600), or its group's too (0660) when the config names one. A socket file left by a service
 * that crashed is noticed (nobody answers) and replaced; a live one means another `quackd serve`,
 * which is refused. A bad request is answered with an error line; nothing it sends can crash the
 * service or reach a body except through the ServiceApi.
 */
import { AsyncResource } from 'node:async_hooks';
import { groupId } from '../../config/os-group.js';
import { jsonTooDeep, nestingMessage } from '../../text/nesting.js';
import { printable } from '../../text/printable.js';
import { chmodSync, chownSync, lstatSync, unlinkSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname, isAbsolute } from 'node:path';
import { InputError, QuackdError, RuntimeError, type ErrorKind } from '../../errors.js';
import { looksLikePath } from '../../ducks/find.js';
import { peerOf, type Peer } from './peer.js';
import { readAsPeer } from './readable-by.js';
import { logger } from '../../log.js';
import { RobotBusy } from '../../runtime/body-pool.js';
import { RobotSettingsError, UnknownRobot } from '../../runtime/fleet.js';
import { byText, clientWords, type RunBy } from '../../runtime/holder.js';
import { RelayBusy, RelayPilot } from '../../pilot/providers/relay.js';
import { createScriptProvider } from '../../pilot/providers/script.js';
import type { HealthLine } from '../api.js';
import type { FrontDoor } from '../front-door.js';
import type { StartedRun } from '../api.js';
import type { Service } from '../service.js';
import type { RunReport } from '../../run/start-run.js';
import type { TranscriptEvent } from '../../transcript/events.js';
import { RequestSchema, RunInputSchema, lineReader, type Reply, type RunRequest, type ServiceInfo } from './protocol.js';

const PROBE_MS = 2000;
/** sun_path's 108 bytes on Linux, its closing NUL aside. */
const MAX_SOCKET_PATH = 107;
/** How long a connection may take to send its request line. */
const REQUEST_MS = 5000;
/** Lines a connection may send before its run is there to hear them (an answer, an abort): more are dropped. */
const EARLY_INPUTS = 16;

/**
 * Who asks: the user the kernel says is at the other end (SO_PEERCRED, peer.ts), and for a client
 * that is a door of its own (serve-mcp) the session it names; the CLI's own words about its user
 * are not taken. Without the kernel's word, what the client said, marked as such.
 */
function askerOf(by: RunBy | undefined, peer: Peer | undefined): RunBy {
  if (peer === undefined) return by !== undefined ? { door: by.door, who: `${clientWords(by.who, 120)} (as the client says)` } : { door: 'cli', who: 'a control-socket client (as the client says)' };
  const user = `user ${clientWords(peer.user, 32)} (uid ${peer.uid})`;
  return by === undefined || by.door === 'cli' ? { door: 'cli', who: user } : { door: by.door, who: `${clientWords(by.who, 120)} · ${user}` };
}

/** The one refusal for a path the asker may not have read: the same whether or not it exists. */
const NOT_YOURS = (path: string) => new InputError(`${clientWords(path, 200)}: no duck you can read there (a path is read only when you could read it yourself; a name comes from the ducks folder)`);


/** Whether a quackd serve answers at `path`: its pid when one does, `stale` when nobody listens. */
function probe(path: string): Promise<{ pid: number | undefined } | 'stale'> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    const done = (r: { pid: number | undefined } | 'stale'): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    // Someone holds it but does not answer: a service that is busy or hung is still not ours to replace.
    const timer = setTimeout(() => done({ pid: undefined }), PROBE_MS);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify({ op: 'status' })}\n`));
    socket.on(
      'data',
      lineReader(
        (line) => {
          try {
            const reply = JSON.parse(line) as Reply;
            done({ pid: reply.type === 'status' ? reply.status.service.pid : undefined });
          } catch {
            done({ pid: undefined });
          }
        },
        () => done({ pid: undefined }),
      ),
    );
    socket.on('error', (err: NodeJS.ErrnoException) => done(err.code === 'ECONNREFUSED' || err.code === 'ENOENT' ? 'stale' : { pid: undefined }));
  });
}

function isSocket(path: string): boolean {
  try {
    return lstatSync(path).isSocket();
  } catch {
    return false;
  }
}

/** Makes `path` ours: nothing there, or a stale socket removed; a live service is refused. */
async function claim(path: string): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!isSocket) throw new RuntimeError(`${path} is in the way: it is not a socket`, 'move it away, then start quackd serve again');
  const found = await probe(path);
  if (found !== 'stale') throw new RuntimeError(`quackd serve is already running${found.pid !== undefined ? ` (pid ${found.pid})` : ''}: its control socket ${path} answers`, "'quackd status' shows it; 'systemctl stop quackd' or SIGTERM stops it");
  logger('service').info({ socket: path }, 'removed a stale control socket (a service that did not stop cleanly)');
  unlinkSync(path);
}

function errorReply(err: unknown): Reply {
  const reply = (kind: ErrorKind, message: string, hint?: string): Reply => ({ type: 'error', kind, message, ...(hint !== undefined ? { hint } : {}) });
  if (err instanceof QuackdError) return reply(err.kind, err.message, err.hint);
  // The service's fleet is the one that counts here (a config edited since it started is not).
  if (err instanceof UnknownRobot) return reply('input', err.message, "'quackd status' lists the robots this service holds");
  if (err instanceof RobotSettingsError) return reply('input', err.message);
  if (err instanceof RobotBusy) return reply('runtime', err.message);
  logger('service').error({ err }, 'control socket: request failed');
  return reply('runtime', `internal error in quackd serve: ${err instanceof Error ? err.message : String(err)}`);
}

export interface ControlSocketOptions {
  readonly path: string;
  /** A group whose members may use the socket too (0660). */
  readonly group?: string;
  readonly info: () => ServiceInfo;
}

export class ControlSocket implements FrontDoor {
  readonly name = 'socket';
  private server: Server | undefined;
  private readonly connections = new Set<Socket>();
  /** Each connection's peer, asked once and only when a request needs it. */
  private readonly peers = new WeakMap<Socket, Promise<Peer | undefined>>();

  constructor(
    private readonly service: Service,
    private readonly options: ControlSocketOptions,
  ) {}

  async start(): Promise<void> {
    const { path, group } = this.options;
    // The kernel cuts a longer path short without a word: the socket would be made elsewhere, and no CLI would find it.
    const bytes = Buffer.byteLength(path);
    if (bytes > MAX_SOCKET_PATH) throw new RuntimeError(`the control socket's path is ${bytes} bytes, over the ${MAX_SOCKET_PATH} a unix socket may have: ${path}`, 'give QUACKD_HOME a shorter path');
    await claim(path);
    const server = createServer((socket) => this.accept(socket));
    // Created with no access for others at all: chmod after listen would leave a moment open.
    const umask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', (err: NodeJS.ErrnoException) =>
          reject(err.code === 'EACCES' ? new RuntimeError(`cannot make the control socket ${path}: permission denied`, `let the service's user write ${dirname(path)}, or point QUACKD_HOME elsewhere`) : new RuntimeError(`cannot listen on the control socket ${path}: ${err.message}`)),
        );
        server.listen(path, () => resolve());
      });
    } finally {
      process.umask(umask);
    }
    server.on('error', (err) => logger('service').error({ err }, 'control socket failed'));
    this.server = server;
    if (group !== undefined) this.share(group);
    logger('service').info({ socket: path, mode: group !== undefined ? '0660' : '0600', ...(group !== undefined ? { group } : {}) }, 'control socket listening');
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server === undefined) return;
    for (const socket of this.connections) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    try {
      unlinkSync(this.options.path);
    } catch {
      // Gone already (close removed it): what we wanted.
    }
  }

  /**
   * The service's own line: listening, and its file still there (a socket file someone removed
   * leaves every CLI outside). Not listening fails the service: systemd's restart makes it again.
   */
  health(): readonly HealthLine[] {
    const { path } = this.options;
    const listening = this.server?.listening === true && isSocket(path);
    return [{ check: 'socket', status: listening ? 'ok' : 'fail', detail: listening ? path : `not listening at ${path}` }];
  }

  /** Members of `group` may use the socket: 0660, its group, and a data directory they may pass through. */
  private share(group: string): void {
    const gid = groupId(group);
    if (gid === undefined) {
      logger('service').warn({ group }, 'control socket: no such group; the socket stays the owner\'s alone (0600)');
      return;
    }
    try {
      chownSync(this.options.path, -1, gid);
      chmodSync(this.options.path, 0o660);
      const dir = dirname(this.options.path);
      chownSync(dir, -1, gid);
      // Pass through, not list: the transcripts and memory beside the socket stay private.
      chmodSync(dir, 0o710);
    } catch (err) {
      logger('service').warn({ group, err: err instanceof Error ? err.message : String(err) }, 'control socket: cannot share with the group; it stays 0600');
    }
  }

  private accept(socket: Socket): void {
    this.connections.add(socket);
    socket.setEncoding('utf8');
    const send = (reply: Reply): void => {
      if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
    };
    let handled = false;
    // After the request, lines are a run's inputs, heard by the run's own handler. Those that come
    // before the run has one (a Ctrl-C while the run is starting) wait for it: an abort is never lost.
    let input: ((line: string) => void) | undefined;
    const early: string[] = [];
    const heard = (h: (line: string) => void): void => {
      input = h;
      for (const line of early.splice(0)) h(line);
    };
    // Bound to the service's context: an accepted socket's own events lose it, and with it the
    // service's logger (src/log.ts withLogs), so a run asked for here would log to nowhere.
    socket.on(
      'data',
      AsyncResource.bind(
        lineReader(
          (line) => {
            if (handled) return input !== undefined ? input(line) : void (early.length < EARLY_INPUTS && early.push(line));
            handled = true;
            // What follows (a run streamed, a follow) lasts as long as it lasts.
            socket.setTimeout(0);
            void this.handle(line, socket, send, heard);
          },
          () => {
            send({ type: 'error', kind: 'usage', message: 'request too long' });
            socket.end();
          },
        ),
      ),
    );
    // A client says what it wants at once (the CLI writes its line on connect): one that has not within
    // the deadline is let go, or half-sent lines would hold the service's descriptors until it has none for a stop.
    socket.setTimeout(REQUEST_MS, () => {
      if (handled) return;
      send({ type: 'error', kind: 'usage', message: `no request within ${REQUEST_MS / 1000} s: a request is one JSON object and a newline` });
      socket.destroy();
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.connections.delete(socket));
  }

  private async handle(line: string, socket: Socket, send: (r: Reply) => void, onInput: (h: (line: string) => void) => void): Promise<void> {
    // Taken as the line is read, before any wait: a stop that comes after this request stops its run.
    const stopMark = this.service.stopMark();
    let parsed: unknown;
    if (jsonTooDeep(line) !== undefined) {
      send({ type: 'error', kind: 'usage', message: `a request is ${nestingMessage()}` });
      return void socket.end();
    }
    try {
      parsed = JSON.parse(line);
    } catch {
      send({ type: 'error', kind: 'usage', message: 'a request is one JSON object a line' });
      return void socket.end();
    }
    const req = RequestSchema.safeParse(parsed);
    if (!req.success) {
      const issue = req.error.issues[0];
      send({ type: 'error', kind: 'usage', message: `bad request: ${issue?.path.join('.') || '(top level)'}: ${issue?.message ?? 'invalid'}` });
      return void socket.end();
    }
    try {
      const r = req.data;
      switch (r.op) {
        case 'status':
          send({ type: 'status', status: { service: this.options.info(), robots: await this.robots(), doors: this.service.doorLines() } });
          break;
        case 'health':
          send({ type: 'health', lines: await this.service.health() });
          break;
        case 'stop': {
          // An emergency stop never waits for the kernel's word (a spawn, tens of ms on a busy Pi):
          // it stops on the client's, marked as such, and the journal then names the user the kernel says.
          const peer = this.peer(socket);
          const unconfirmed = await this.service.stop(r.robot, undefined, askerOf(r.by, undefined));
          void peer.then((p) => (p !== undefined ? logger('service').info(`emergency stop${r.robot !== undefined ? `: ${clientWords(r.robot)}` : ''} was asked over the control socket by ${byText(askerOf(r.by, p))}`) : undefined));
          send({ type: 'stopped', robots: r.robot !== undefined ? [this.service.status(r.robot).robot] : this.service.robots().map((s) => s.robot), ...(unconfirmed.length > 0 ? { unconfirmed } : {}) });
          break;
        }
        case 'confirm':
          send({ type: 'confirmed', robot: this.service.status(r.robot).robot, answered: this.service.answerGate(r.robot, r.answer, r.verb, 'person', await this.asker(socket, r.by)) });
          break;
        case 'run':
          return await this.run(r, stopMark, socket, send, onInput);
        case 'torque': {
          const { torque: _readBack, ...started } = await this.service.torque(r.robot, r.on, r.gates, await this.asker(socket, undefined));
          return await this.stream(started, undefined, socket, send, onInput);
        }
        case 'follow':
          return await this.follow(r.target, r.wait === true, socket, send);
        case 'observe': {
          const { robot, key, perRun, observation } = await this.service.observe(r.robot, await this.asker(socket, r.by));
          send({ type: 'observation', robot, key, perRun, observation });
          break;
        }
        case 'can':
          send({ type: 'can', robot: this.service.status(r.robot).robot, can: this.service.can(r.robot) });
          break;
        case 'memory':
          send({ type: 'memory', answer: await this.service.memory(r.robot, r.ask) });
          break;
        case 'transcripts':
          send({ type: 'transcripts', runs: this.service.transcripts(r.limit) });
          break;
        case 'transcript': {
          send({ type: 'transcript', ...(await this.service.transcript(r.id)) });
          break;
        }
      }
    } catch (err) {
      send(errorReply(err));
    }
    socket.end();
  }

  private async robots(): Promise<(ReturnType<Service['robots']>[number] & { memory?: { notes: number; episodes: number } })[]> {
    const counts = await this.service.memoryCounts();
    return this.service.robots().map((s) => {
      const memory = counts[s.key];
      return memory !== undefined ? { ...s, memory } : s;
    });
  }

  /**
   * A run for the terminal that asked: its events as they happen, its gates asked there, its end.
   * A `drive` run is piloted by the asker: each `call` it sends goes to the run's loop through the
   * relay pilot, and what became of it comes back as a `step`; a `script` run is played by the
   * script pilot (`quackd do`).
   */
  /** The connection's peer, asked of the kernel once (peer.ts). */
  private peer(socket: Socket): Promise<Peer | undefined> {
    let asked = this.peers.get(socket);
    if (asked === undefined) {
      asked = peerOf(socket);
      this.peers.set(socket, asked);
    }
    return asked;
  }

  private async asker(socket: Socket, by: RunBy | undefined): Promise<RunBy> {
    return askerOf(by, await this.peer(socket));
  }

  /**
   * A duck named by path and not sent as text: read for the asker only when the asker could read
   * it (readable-by.ts); refused alike whether it is missing, unreadable or not the asker's to read.
   */
  private async pathDuck(socket: Socket, path: string): Promise<string> {
    if (!isAbsolute(path)) throw new InputError(`${clientWords(path, 200)}: a duck path on the control socket is absolute (or send the duck's text, as the CLI does)`);
    const peer = await this.peer(socket);
    if (peer === undefined) throw new InputError(`${clientWords(path, 200)}: the service cannot tell who asks (perl is needed to ask the kernel), so it reads no path for you; send the duck's text or name a duck`);
    const text = readAsPeer(path, peer);
    if (text === undefined) {
      logger('socket').warn({ path: clientWords(path, 200), user: peer.user, uid: peer.uid }, 'refused a duck path the asker cannot read');
      throw NOT_YOURS(path);
    }
    return text;
  }

  private async run(r: RunRequest, stopMark: number, socket: Socket, send: (reply: Reply) => void, onInput: (h: (line: string) => void) => void): Promise<void> {
    const { op: _op, robot, drive, script, by, ...asked } = r;
    const request = asked.text === undefined && asked.goal === undefined && looksLikePath(asked.duck) ? { ...asked, text: await this.pathDuck(socket, asked.duck) } : asked;
    const relay = drive !== undefined ? new RelayPilot(drive.client) : undefined;
    const pilot = relay ?? (script === true ? createScriptProvider() : undefined);
    // A script run is `quackd do`: one verb, no episode in memory.
    const started = await this.service.run(robot, { ...request, stopMark, by: await this.asker(socket, by), ...(pilot !== undefined ? { pilot } : {}), ...(script === true ? { noMemory: true } : {}) });
    void started.done.then(() => relay?.end());
    await this.stream(started, relay, socket, send, onInput);
  }

  /** A run under way, for the terminal that asked for it: its events, its gates asked there, its end; `relay` when that terminal pilots it. */
  private async stream(started: StartedRun, relay: RelayPilot | undefined, socket: Socket, send: (reply: Reply) => void, onInput: (h: (line: string) => void) => void): Promise<void> {
    const { done: _done, ...run } = started;
    send({ type: 'started', run });
    const off = this.relayGates(run, send);
    const followed = this.service.follow(run.runId, { onEvent: (event) => send({ type: 'event', event }), onEnd: () => undefined });
    onInput((line) => {
      let value: unknown;
      try {
        value = jsonTooDeep(line) === undefined ? JSON.parse(line) : undefined;
      } catch {
        value = undefined;
      }
      const input = RunInputSchema.safeParse(value);
      if (!input.success) return send({ type: 'error', kind: 'usage', message: 'during a run: send {"op":"answer","answer":true|false} or {"op":"abort","why":"Ctrl-C"}' });
      const said = input.data;
      if (said.op === 'answer') {
        const how = said.unasked === true ? 'unasked' : (said.how ?? (relay !== undefined ? 'person' : 'tty'));
        this.service.answerGate(run.robot, said.answer && how !== 'unasked', undefined, how);
      }
      else if (said.op === 'abort') this.service.abortRun(run.runId, said.why);
      else if (relay === undefined) send({ type: 'error', kind: 'usage', message: 'a call is for a run the asker pilots (drive)' });
      else {
        relay.submit(said.name, said.args).then(
          (step) => (step !== undefined ? send({ type: 'step', step }) : undefined),
          (err: unknown) => send(errorReply(err instanceof RelayBusy ? new RuntimeError(err.message) : err)),
        );
      }
    });
    // The person who started it is gone (the SSH session dropped, the CLI was killed): as a local run would, it stops.
    const hangup = (): void => void this.service.abortRun(run.runId, relay !== undefined ? `its pilot (${relay.model}) hanging up` : 'the terminal that started it hanging up');
    if (socket.destroyed) hangup();
    else socket.once('close', hangup);
    const report = await started.done;
    socket.off('close', hangup);
    off();
    followed?.unfollow();
    send({ type: 'end', report });
    socket.end();
  }

  /**
   * Sends the question of each gate `run` waits on, the one waiting already first: the terminal
   * that started it asks it, a follower shows it. Returns the function that stops.
   */
  private relayGates(run: { readonly runId: string; readonly robot: string }, send: (reply: Reply) => void): () => void {
    const asked = (question: string, verb: string): void => send({ type: 'gate', question, verb });
    const off = this.service.events.on('run:gate', (e) => {
      if (e.runId === run.runId && e.state === 'waiting') asked(e.question, e.verb);
    });
    const status = this.service.status(run.robot);
    if (status.gate !== undefined && status.run?.runId === run.runId) asked(status.gate.question, status.gate.verb);
    return off;
  }

  /**
   * A run as it happens, to its end: the one under way on `target` (a robot or a run id; any when
   * undefined), or with `wait` and nothing under way on a robot, the next one to start there.
   */
  private async follow(target: string | undefined, wait: boolean, socket: Socket, send: (reply: Reply) => void): Promise<void> {
    let end: (() => void) | undefined;
    const ended = new Promise<void>((resolve) => (end = resolve));
    let outcome: Reply | undefined;
    // The run's header goes first: the events so far are held until it is sent.
    const early: Reply[] = [];
    let live = false;
    const listener = {
      onEvent: (event: TranscriptEvent) => (live ? send({ type: 'event', event }) : early.push({ type: 'event', event })),
      onEnd: (report: RunReport) => {
        outcome = { type: 'end', report };
        end?.();
      },
    };
    const followed = this.service.follow(target, listener) ?? (wait ? await this.followNext(target, listener, socket, send) : undefined);
    if (followed === undefined) {
      if (!socket.destroyed) send({ type: 'error', kind: 'input', message: target !== undefined ? `no run under way on or with "${printable(target)}"` : 'no run under way' });
      return void socket.end();
    }
    const { done: _done, ...run } = followed.run;
    send({ type: 'started', run });
    for (const r of early) send(r);
    live = true;
    const off = this.relayGates(run, send);
    socket.once('close', () => {
      followed.unfollow();
      end?.();
    });
    await ended;
    off();
    if (outcome !== undefined) send(outcome);
    socket.end();
  }

  /**
   * The next run on the robot `target` names (any robot when undefined), followed once it starts;
   * the follower is told it waits. Undefined at once when `target` names no robot (a run id that
   * is not under way), or when the follower leaves first.
   */
  private followNext(target: string | undefined, listener: Parameters<Service['follow']>[1], socket: Socket, send: (reply: Reply) => void): Promise<ReturnType<Service['follow']>> {
    return new Promise((resolve) => {
      let stop: () => void;
      try {
        stop = this.service.nextRun(target, (runId) => {
          socket.off('close', left);
          resolve(this.service.follow(runId, listener));
        });
      } catch (err) {
        if (err instanceof UnknownRobot) return resolve(undefined);
        throw err;
      }
      const left = (): void => {
        stop();
        resolve(undefined);
      };
      socket.once('close', left);
      send({ type: 'waiting', ...(target !== undefined ? { robot: this.service.status(target).robot } : {}) });
    });
  }
}
