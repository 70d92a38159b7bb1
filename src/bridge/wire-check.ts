/**
 * The two checks every frame from the firmware goes through, written out by hand: the JSON-RPC
 * envelope, and the `state` notification that streams at 50 Hz. They say exactly what
 * protocol.ts's zod schemas say (a contract test holds them to it on random payloads, schema as
 * the oracle), because in the control worker, between ticks, zod's generic walk of a state cost
 * about 170 µs of a 20 ms period (measured in place on the host firmware: a third of the worker's
 * idle CPU), where these straight-line checks cost a few. Everything else the firmware says
 * (hello, faults, results) is rare and stays with zod.
 */
import type { BridgeState } from './protocol.js';
import { isRecord } from '../is-record.js';

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
/** zod's `.int().nonnegative()`: a safe integer ≥ 0 */
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

function numbers(v: unknown): number[] | undefined {
  if (!Array.isArray(v)) return undefined;
  for (const x of v) if (!isNumber(x)) return undefined;
  return v as number[];
}

function vec3(v: unknown): [number, number, number] | undefined {
  if (!Array.isArray(v) || v.length !== 3) return undefined;
  const [a, b, c] = v as unknown[];
  return isNumber(a) && isNumber(b) && isNumber(c) ? [a, b, c] : undefined;
}

function rx(v: unknown): BridgeState['rx'] | undefined {
  if (!isRecord(v)) return undefined;
  const { ok, crc, malformed, overlong, runt, json } = v;
  if (!isCount(ok) || !isCount(crc) || !isCount(malformed) || !isCount(overlong) || !isCount(runt) || !isCount(json)) return undefined;
  return { ok, crc, malformed, overlong, runt, json };
}

/** A `state` notification's params as stateSchema parses them (unknown keys dropped), or undefined. */
export function checkState(p: unknown): BridgeState | undefined {
  if (!isRecord(p)) return undefined;
  const { seq, t, torque, battery_v, quacks, targets, tx_dropped, limited, torque_retries } = p;
  if (!isCount(seq) || !isCount(t) || typeof torque !== 'boolean' || !isNumber(battery_v) || !isCount(quacks) || !isCount(targets) || !isCount(tx_dropped)) return undefined;
  if ((limited !== undefined && !isCount(limited)) || (torque_retries !== undefined && !isCount(torque_retries))) return undefined;
  const pos = numbers(p['pos']);
  const vel = numbers(p['vel']);
  const gyro = vec3(p['gyro']);
  const accel = vec3(p['accel']);
  const c = p['contacts'];
  const counters = rx(p['rx']);
  if (pos === undefined || vel === undefined || gyro === undefined || accel === undefined || counters === undefined) return undefined;
  if (!Array.isArray(c) || c.length !== 2 || typeof c[0] !== 'boolean' || typeof c[1] !== 'boolean') return undefined;
  const contacts: [boolean, boolean] = [c[0], c[1]];
  const state: BridgeState = { seq, t, torque, pos, vel, gyro, accel, contacts, battery_v, quacks, targets, rx: counters, tx_dropped };
  if (limited !== undefined) state.limited = limited;
  if (torque_retries !== undefined) state.torque_retries = torque_retries;
  return state;
}

export interface RpcErrorBody {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export type Envelope =
  | { readonly kind: 'response'; readonly id: number | string | null; readonly result?: unknown; readonly error?: RpcErrorBody }
  | { readonly kind: 'notification'; readonly method: string; readonly params: unknown };

function rpcError(v: unknown): RpcErrorBody | undefined | 'bad' {
  if (v === undefined) return undefined;
  if (!isRecord(v) || !Number.isSafeInteger(v['code']) || typeof v['message'] !== 'string') return 'bad';
  const e: { code: number; message: string; data?: unknown } = { code: v['code'] as number, message: v['message'] };
  if ('data' in v) e.data = v['data'];
  return e;
}

/**
 * A parsed frame as JSON-RPC 2.0 from the firmware: a response (with an id, a result or an
 * error) or a notification; undefined for anything else. A message that fits both is a
 * response, as the schema's union tries it first.
 */
export function checkEnvelope(m: unknown): Envelope | undefined {
  if (!isRecord(m) || m['jsonrpc'] !== '2.0') return undefined;
  const id = m['id'];
  if (typeof id === 'number' || typeof id === 'string' || id === null) {
    const error = rpcError(m['error']);
    if (error !== 'bad') {
      const result = m['result'];
      if (result === undefined && error === undefined) return undefined;
      return { kind: 'response', id, ...(result !== undefined ? { result } : {}), ...(error !== undefined ? { error } : {}) };
    }
  }
  const method = m['method'];
  if (typeof method !== 'string') return undefined;
  return { kind: 'notification', method, params: m['params'] };
}
