/**
 * The robot live in Foxglove: a Foxglove WebSocket server (@foxglove/ws-protocol's FoxgloveServer
 * over `ws`) that advertises a recording's channels and sends the same messages as they happen.
 * It accepts both names of the protocol: `foxglove.sdk.v1` (current Foxglove, foxglove_bridge ≥ 3)
 * and `foxglove.websocket.v1` (older clients). It only sends: no client publishing, services or
 * parameters, so nothing a client says can move a robot.
 *
 * Off loopback a token is required (the `Authorization: Bearer` header, or `?token=` in the URL,
 * since Foxglove's connection dialog takes a URL and a browser cannot set the header); a connection
 * without it is answered 401 before the WebSocket opens. A slow client loses messages: past
 * MAX_BUFFERED bytes waiting for its socket, a message for it is dropped and counted, never queued,
 * and the control loop (another thread) never waits on any of this.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import wsProtocol, { type IWebSocket } from '@foxglove/ws-protocol';
import { WebSocketServer, type WebSocket } from 'ws';
import { RuntimeError, UsageError } from '../errors.js';
import { logger } from '../log.js';
import { isLoopback } from '../mcp/exposure.js';
import { CHANNELS, encodeMessage, type ChannelName } from '../recording/channels.js';
import type { ChannelMessage } from '../recording/joint-messages.js';
import { FRAMES, framesOf, type Frames } from '../recording/scene.js';
import { nanos } from '../recording/time.js';
import { VERSION } from '../version.js';

/** A recording's channels but /camera: a snapshot's picture is the run's, taken for its pilot, and never on the bus this server hears. */
const LIVE_CHANNELS = (Object.keys(CHANNELS) as ChannelName[]).filter((name) => name !== 'camera' && name !== 'film');

/** The protocol's names, the current first. */
export const SUBPROTOCOLS = ['foxglove.sdk.v1', 'foxglove.websocket.v1'] as const;
/** Bytes a client may have waiting for its socket before its messages are dropped: a few seconds of a walk. */
export const MAX_BUFFERED = 256 * 1024;

/** The protocol's binary opcode for message data (its first byte). */
const MESSAGE_DATA = 1;

export interface LiveServerOptions {
  readonly host: string;
  readonly port: number;
  /** Required off loopback. */
  readonly token?: string;
  /**
   * The fleet's robots, whose channels are advertised at once (a client subscribes before a run
   * starts). With several, each robot's topics are under `/<robot>` and its frames are `<robot>/room`
   * and `<robot>/trunk`; with one, a recording's topics and frames as they are.
   */
  readonly robots: readonly string[];
}

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

function tokenOf(req: IncomingMessage): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) return bearer;
  try {
    return new URL(req.url ?? '/', 'http://localhost').searchParams.get('token') ?? undefined;
  } catch {
    // A request line no URL parser takes carries no token.
    return undefined;
  }
}

/**
 * The client's socket as FoxgloveServer sees it: everything passes through, but message data for a
 * client whose socket has MAX_BUFFERED bytes waiting is dropped (and counted). Its send takes one
 * argument, so FoxgloveServer sends each message as one frame: a message is dropped whole.
 */
class BoundedSocket implements IWebSocket {
  dropped = 0;
  constructor(private readonly ws: WebSocket) {}
  get binaryType(): string {
    return this.ws.binaryType;
  }
  set binaryType(v: string) {
    this.ws.binaryType = v as WebSocket['binaryType'];
  }
  get protocol(): string {
    return this.ws.protocol;
  }
  set onerror(f: IWebSocket['onerror']) {
    this.ws.onerror = f ?? null;
  }
  get onerror(): IWebSocket['onerror'] {
    return this.ws.onerror;
  }
  set onopen(f: IWebSocket['onopen']) {
    this.ws.onopen = f ?? null;
  }
  get onopen(): IWebSocket['onopen'] {
    return this.ws.onopen;
  }
  set onclose(f: IWebSocket['onclose']) {
    this.ws.onclose = f ?? null;
  }
  get onclose(): IWebSocket['onclose'] {
    return this.ws.onclose;
  }
  set onmessage(f: IWebSocket['onmessage']) {
    this.ws.onmessage = f ?? null;
  }
  get onmessage(): IWebSocket['onmessage'] {
    return this.ws.onmessage;
  }
  close(): void {
    this.ws.close();
  }
  send(data: string | ArrayBuffer | ArrayBufferView): void {
    const first = typeof data === 'string' ? undefined : data instanceof ArrayBuffer ? new Uint8Array(data, 0, 1)[0] : new Uint8Array(data.buffer, data.byteOffset, 1)[0];
    if (first === MESSAGE_DATA && this.ws.bufferedAmount > MAX_BUFFERED) {
      this.dropped += 1;
      return;
    }
    this.ws.send(data);
  }
}


export class LiveServer {
  private readonly foxglove = new wsProtocol.FoxgloveServer({ name: `quackd ${VERSION}`, capabilities: [] });
  private readonly http: Server;
  /** A client only subscribes and unsubscribes: 64 KiB is far more than either takes. */
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, handleProtocols: (offered) => SUBPROTOCOLS.find((p) => offered.has(p)) ?? false });
  /** `topic` → its channel id, advertised once, the first time a message comes for it. */
  private readonly channelIds = new Map<string, number>();
  private readonly subscribed = new Set<number>();
  private readonly sockets = new Set<BoundedSocket>();
  /** Messages dropped for clients that have gone. */
  private droppedGone = 0;
  /** Made here, not in a socket's callback: a logger writes to the stream of the command that made it. */
  private readonly log = logger('foxglove');
  url = '';

  constructor(private readonly options: LiveServerOptions) {
    if (!isLoopback(options.host) && (options.token === undefined || options.token === '')) {
      throw new UsageError(`serve: --foxglove ${options.host} is reachable from other machines, and nobody may watch the robots from there without a token`, 'give --foxglove-token-file FILE (or QUACKD_FOXGLOVE_TOKEN, or foxglove.token_file in the config), or bind 127.0.0.1');
    }
    this.http = createServer((_req, res) => res.writeHead(426, { 'content-type': 'text/plain' }).end('a Foxglove WebSocket server: connect with Foxglove (Open connection → Foxglove WebSocket)\n'));
    this.http.on('upgrade', (req, socket, head) => this.upgrade(req, socket, head));
    this.foxglove.on('subscribe', (id) => this.subscribed.add(id));
    this.foxglove.on('unsubscribe', (id) => this.subscribed.delete(id));
    for (const robot of options.robots) for (const name of LIVE_CHANNELS) this.channel(robot, name);
  }

  async start(): Promise<void> {
    const { host, port: asked } = this.options;
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', (err: NodeJS.ErrnoException) => reject(new RuntimeError(`serve: Foxglove cannot listen on ${host}:${asked} (${err.code ?? err.message})`, err.code === 'EADDRINUSE' ? 'another program has that port: pick another with --foxglove ADDR:PORT (or foxglove.listen in the config)' : undefined)));
      this.http.listen(asked, host, () => {
        this.http.removeAllListeners('error');
        this.http.on('error', (err) => this.log.error({ err: err.message }, 'the Foxglove server failed'));
        resolve();
      });
    });
    const { port } = this.http.address() as AddressInfo;
    this.url = `ws://${host.includes(':') ? `[${host}]` : host}:${port}`;
  }

  /** Sends a robot's message to every client subscribed to its channel; encoded only when one is. */
  publish(robot: string, m: ChannelMessage): void {
    const id = this.channel(robot, m.channel);
    if (!this.subscribed.has(id)) return;
    this.foxglove.sendMessage(id, nanos(m.epochMs), encodeMessage(m.channel, m.message));
  }

  get clients(): number {
    return this.sockets.size;
  }

  /** Messages dropped for slow clients since the start. */
  get dropped(): number {
    let n = this.droppedGone;
    for (const s of this.sockets) n += s.dropped;
    return n;
  }

  async stop(): Promise<void> {
    for (const ws of this.wss.clients) ws.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  /** The frames a robot's messages are to be in here. */
  frames(robot: string): Frames {
    return this.shared ? framesOf(robot) : FRAMES;
  }

  private get shared(): boolean {
    return this.options.robots.length > 1;
  }

  private channel(robot: string, name: ChannelName): number {
    const spec = CHANNELS[name];
    const topic = this.shared ? `/${robot}${spec.topic}` : spec.topic;
    let id = this.channelIds.get(topic);
    if (id === undefined) {
      id = this.foxglove.addChannel({ topic, encoding: spec.encoding, schemaName: spec.schemaName, schema: spec.schema, schemaEncoding: spec.schemaEncoding });
      this.channelIds.set(topic, id);
    }
    return id;
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const token = this.options.token;
    const given = tokenOf(req);
    if (token !== undefined && (given === undefined || !timingSafeEqual(digest(given), digest(token)))) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm="quackd"\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const client = `${req.socket.remoteAddress ?? '?'}:${req.socket.remotePort ?? 0}`;
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      // ws has already closed a client whose frame it refused (1009 too big, 1007 not UTF-8) when it
      // emits 'error'; FoxgloveServer never listens for it, and an unheard 'error' ends the service.
      ws.on('error', (err) => this.log.warn({ client, err: err.message }, `Foxglove client ${client} closed: ${err.message}`));
      const bounded = new BoundedSocket(ws);
      this.sockets.add(bounded);
      ws.once('close', () => {
        this.sockets.delete(bounded);
        this.droppedGone += bounded.dropped;
      });
      this.foxglove.handleConnection(bounded, client);
    });
  }
}
