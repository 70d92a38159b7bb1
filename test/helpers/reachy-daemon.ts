/**
 * A loopback stand-in for Pollen's Reachy Mini daemon (127.0.0.1, a free port) with exactly the
 * routes reachy-mini:daemon uses, shaped as the daemon's source defines them (reachy_mini
 * v1.9.0-78-g70a7c0b12: routers/move.py, state.py, motors.py, daemon.py, media.py (sounds; release,
 * acquire and status of its camera and audio); models.py):
 * a goto answers its move's uuid at once and the move shows in /api/move/running until it is done,
 * a request body FastAPI would refuse gets its 422 with `detail` as a list, a route without a
 * running backend its 503. Every request is recorded; a route can be made to fail or to hang.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

export interface DaemonRequest {
  readonly method: string;
  /** The path without its query. */
  readonly path: string;
  readonly body: unknown;
}

const MODES = ['enabled', 'disabled', 'gravity_compensation'];

export interface FakeDaemon {
  readonly url: string;
  readonly requests: DaemonRequest[];
  /** Sound files uploaded to it, by name. */
  readonly sounds: ReadonlySet<string>;
  /** Gotos asked, in order. */
  gotos(): Record<string, unknown>[];
  /** `METHOD /path` answers this status and `{"detail": …}` from now on. */
  fail(route: string, status: number, detail: string): void;
  /** `METHOD /path` never answers from now on. */
  hang(route: string): void;
  /** `media`: whether the daemon runs its media server (no `--no-media`) and whether a client released it. */
  state: { head: { roll: number; pitch: number; yaw: number }; bodyYaw: number; antennas: [number, number]; mode: string; backendReady: boolean; media: { server: boolean; released: boolean } };
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** FastAPI's 422 for a body that does not validate. */
const invalid = (res: ServerResponse, loc: (string | number)[], msg: string): void => send(res, 422, { detail: [{ type: 'value_error', loc, msg, input: null }] });

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A multipart upload as recorded: the `file` field's name, size and whether it is a PCM WAV. */
export interface Upload {
  readonly filename: string;
  readonly bytes: number;
  readonly wav: boolean;
}

function uploaded(raw: Buffer): Upload | undefined {
  const head = /name="file"; filename="([^"]+)"\r\n(?:[^\r\n]+\r\n)*\r\n/.exec(raw.toString('latin1'));
  if (head?.[1] === undefined) return undefined;
  const start = head.index + head[0].length;
  const end = raw.indexOf('\r\n--', start);
  const content = raw.subarray(start, end < 0 ? raw.length : end);
  return { filename: head[1], bytes: content.length, wav: content.subarray(0, 4).toString('latin1') === 'RIFF' && content.subarray(8, 16).toString('latin1') === 'WAVEfmt ' };
}

/** `port`: where to listen (a daemon come back where it was); default a free one. */
export async function startFakeDaemon(options: { moveMs?: number; version?: string; port?: number } = {}): Promise<FakeDaemon> {
  const requests: DaemonRequest[] = [];
  const failing = new Map<string, { status: number; detail: string }>();
  const hanging = new Set<string>();
  const held: ServerResponse[] = [];
  const running = new Map<string, NodeJS.Timeout>();
  const sounds = new Set<string>();
  const state: FakeDaemon['state'] = { head: { roll: 0, pitch: 0, yaw: 0 }, bodyYaw: 0, antennas: [0, 0], mode: 'enabled', backendReady: true, media: { server: true, released: false } };

  const backend = (res: ServerResponse): boolean => {
    if (!state.backendReady) send(res, 503, { detail: 'Backend not running' });
    return state.backendReady;
  };

  function goto(body: unknown, res: ServerResponse): void {
    const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (!isNum(b['duration'])) return invalid(res, ['body', 'duration'], 'Field required');
    const head = b['head_pose'] as Record<string, unknown> | undefined;
    const antennas = b['antennas'];
    if (antennas !== undefined && !(Array.isArray(antennas) && antennas.length === 2 && antennas.every(isNum))) return invalid(res, ['body', 'antennas'], 'Tuple should have 2 items');
    if (!backend(res)) return;
    const uuid = randomUUID();
    const apply = (): void => {
      running.delete(uuid);
      if (head !== undefined) state.head = { roll: Number(head['roll'] ?? 0), pitch: Number(head['pitch'] ?? 0), yaw: Number(head['yaw'] ?? 0) };
      if (isNum(b['body_yaw'])) state.bodyYaw = b['body_yaw'];
      if (Array.isArray(antennas)) state.antennas = [antennas[0] as number, antennas[1] as number];
    };
    running.set(uuid, setTimeout(apply, options.moveMs ?? 0));
    send(res, 200, { uuid });
  }

  function route(req: IncomingMessage, path: string, body: unknown, res: ServerResponse): void {
    const key = `${req.method} ${path}`;
    const mode = /^\/api\/motors\/set_mode\/([^/]+)$/.exec(path);
    if (req.method === 'POST' && mode !== null) {
      const m = decodeURIComponent(mode[1] ?? '');
      if (!MODES.includes(m)) return invalid(res, ['path', 'mode'], "Input should be 'enabled', 'disabled' or 'gravity_compensation'");
      if (!backend(res)) return;
      state.mode = m;
      // The daemon formats its enum into this line; the body reads nothing of it.
      return send(res, 200, { status: `motors changed to ${m} mode` });
    }
    switch (key) {
      case 'GET /api/daemon/status':
        return send(res, 200, {
          type: 'daemon_status', robot_name: 'reachy_mini', state: state.backendReady ? 'running' : 'stopped', wireless_version: false, desktop_app_daemon: false,
          simulation_enabled: false, mockup_sim_enabled: true, no_media: !state.media.server, media_released: state.media.released, camera_specs_name: '',
          backend_status: state.backendReady ? { motor_control_mode: state.mode, error: null } : null, error: null, wlan_ip: null, version: options.version ?? '1.9.0', hardware_id: null,
        });
      case 'GET /api/state/full':
        if (!backend(res)) return;
        return send(res, 200, { control_mode: state.mode, head_pose: { x: 0, y: 0, z: 0, ...state.head }, head_joints: null, body_yaw: state.bodyYaw, antennas_position: state.antennas, timestamp: new Date().toISOString(), passive_joints: null, doa: null });
      case 'POST /api/move/goto':
        return goto(body, res);
      case 'GET /api/move/running':
        return send(res, 200, [...running.keys()].map((uuid) => ({ uuid })));
      case 'POST /api/move/stop': {
        const uuid = (body as { uuid?: unknown } | null)?.uuid;
        const timer = typeof uuid === 'string' ? running.get(uuid) : undefined;
        // A uuid not running: the daemon's KeyError is uncaught there, so a plain 500.
        if (timer === undefined || typeof uuid !== 'string') return void res.writeHead(500, { 'content-type': 'text/plain' }).end('Internal Server Error');
        clearTimeout(timer);
        running.delete(uuid);
        return send(res, 200, { message: `Stopped move with UUID: ${uuid}` });
      }
      case 'GET /api/motors/status':
        if (!backend(res)) return;
        return send(res, 200, { mode: state.mode });
      case 'POST /api/media/sounds/upload': {
        const file = body as Upload | undefined;
        if (file?.filename === undefined) return invalid(res, ['body', 'file'], 'Field required');
        if (!/\.(wav|mp3|ogg|oga|opus|flac|m4a|aac)$/i.test(file.filename)) return send(res, 400, { detail: 'Unsupported file extension' });
        // The daemon probes the content with GStreamer; a RIFF/WAVE header is what this stand-in checks.
        if (!file.wav) return send(res, 400, { detail: 'Unsupported or invalid audio file' });
        sounds.add(file.filename);
        return send(res, 200, { status: 'ok', path: `/tmp/reachy_mini_sounds/${file.filename}` });
      }
      // media.py: release and acquire are idempotent, and a no-op without a media server.
      case 'GET /api/media/status':
        return send(res, 200, { available: state.media.server && !state.media.released, released: state.media.released, no_media: !state.media.server });
      case 'POST /api/media/release':
        if (state.media.server) state.media.released = true;
        return send(res, 200, { status: 'ok' });
      case 'POST /api/media/acquire':
        state.media.released = false;
        return send(res, 200, { status: 'ok' });
      case 'POST /api/media/play_sound':
        if (typeof (body as { file?: unknown } | null)?.file !== 'string') return invalid(res, ['body', 'file'], 'Field required');
        if (!backend(res)) return;
        return send(res, 200, { status: 'ok' });
      default:
        return send(res, 404, { detail: 'Not Found' });
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const raw = Buffer.concat(chunks);
      let body: unknown = undefined;
      try {
        body = (req.headers['content-type'] ?? '').startsWith('multipart/form-data') ? uploaded(raw) : raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8'));
      } catch {
        return send(res, 422, { detail: [{ type: 'json_invalid', loc: ['body'], msg: 'JSON decode error' }] });
      }
      requests.push({ method: req.method ?? '', path, body });
      const key = `${req.method} ${path}`;
      if (hanging.has(key)) return void held.push(res);
      const f = failing.get(key);
      if (f !== undefined) return send(res, f.status, { detail: f.detail });
      route(req, path, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    sounds,
    gotos: () => requests.filter((r) => r.path === '/api/move/goto').map((r) => r.body as Record<string, unknown>),
    fail: (r, status, detail) => failing.set(r, { status, detail }),
    hang: (r) => hanging.add(r),
    state,
    close: async () => {
      for (const t of running.values()) clearTimeout(t);
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
