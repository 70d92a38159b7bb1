/**
 * The CLI's end of the control socket: find the running service (its home's socket, then the
 * system service's), send one request, read its replies. No service is an answer, not an error:
 * each command says what that means for it.
 */
import { createConnection, type Socket } from 'node:net';
import { QuackdError, RuntimeError } from '../../errors.js';
import { lineReader } from './lines.js';
import type { Reply, Request, RunInput } from './protocol.js';
import { socketCandidates } from './path.js';

export interface Connection {
  readonly path: string;
  /** Sends a line the other way (a run's gate answers and Ctrl-C). */
  send(input: RunInput): void;
  /** Resolves when the service closed the connection; every reply has been heard by then. */
  readonly closed: Promise<void>;
  close(): void;
}

function connect(path: string): Promise<Socket | undefined> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      // Nothing there, or a socket file nobody listens on (a service that crashed): no service.
      if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED' || err.code === 'ENOTDIR') return resolve(undefined);
      if (err.code === 'EACCES' || err.code === 'EPERM') return reject(new RuntimeError(`quackd serve's control socket ${path} is not yours to use`, "ask for the service's group (config: service.socket_group), or use sudo"));
      reject(new RuntimeError(`cannot reach quackd serve at ${path} (${err.code ?? err.message})`));
    });
  });
}

/** Sends `request` to the running service, each reply to `onReply`; undefined when no service runs. */
export async function openService(env: NodeJS.ProcessEnv, request: Request, onReply: (reply: Reply) => void): Promise<Connection | undefined> {
  for (const path of socketCandidates(env)) {
    const socket = await connect(path);
    if (socket === undefined) continue;
    socket.setEncoding('utf8');
    const closed = new Promise<void>((resolve) => {
      socket.on('close', () => resolve());
      socket.on('error', () => undefined);
    });
    socket.on(
      'data',
      lineReader(
        (line) => {
          let reply: Reply;
          try {
            reply = JSON.parse(line) as Reply;
          } catch {
            reply = { type: 'error', kind: 'runtime', message: 'quackd serve answered something that is not JSON' };
          }
          onReply(reply);
        },
        () => socket.destroy(),
      ),
    );
    socket.write(`${JSON.stringify(request)}\n`);
    return {
      path,
      send: (input) => void (socket.writable ? socket.write(`${JSON.stringify(input)}\n`) : undefined),
      closed,
      close: () => socket.destroy(),
    };
  }
  return undefined;
}

/**
 * One request, one reply (status, health, stop); undefined when no service runs. `signal` lets go
 * of a service that does not answer (quackd health's deadline).
 */
export async function askService(env: NodeJS.ProcessEnv, request: Request, signal?: AbortSignal): Promise<Reply | undefined> {
  let first: Reply | undefined;
  const connection = await openService(env, request, (reply) => (first ??= reply));
  if (connection === undefined) return undefined;
  const close = (): void => connection.close();
  signal?.addEventListener('abort', close, { once: true });
  await connection.closed;
  signal?.removeEventListener('abort', close);
  return first ?? { type: 'error', kind: 'runtime', message: 'quackd serve closed the connection without an answer' };
}

/** `quackd status` and friends without a service: one line, the socket(s) looked at. */
export function noService(env: NodeJS.ProcessEnv): RuntimeError {
  return new RuntimeError(`no quackd serve is running (no answer at ${socketCandidates(env).join(' or ')})`, "start it with 'quackd serve' or 'systemctl start quackd'");
}

/** A service's error reply, as the error a command throws (its kind picks the exit code). */
export function replyError(reply: Extract<Reply, { type: 'error' }>): QuackdError {
  return new QuackdError(reply.message, reply.kind, reply.hint);
}
