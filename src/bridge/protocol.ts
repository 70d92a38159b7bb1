/**
 * The typed messages of firmware-bridge/PROTOCOL.md (protocol version 1): JSON-RPC 2.0 requests,
 * responses and notifications, validated with zod on the way in so nothing downstream sees a
 * shape the firmware did not promise. Unknown extra fields are dropped, which lets a newer
 * firmware add fields without breaking this side.
 */
import * as z from '../zod-mini.js';
import { checkEnvelope, type Envelope } from './wire-check.js';

export const PROTOCOL_VERSION = 1;

export { DEFAULT_BAUD } from './baud.js';

/** JSON-RPC error codes the firmware uses. */
export const RPC_ERROR = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  badParams: -32602,
  outOfLimit: -32001,
  torqueOff: -32002,
  /** Torque off written and read back three times, and a servo still did not confirm it. */
  torqueUnconfirmed: -32003,
} as const;

const count = z.int().check(z.nonnegative());
const vec3 = z.tuple([z.number(), z.number(), z.number()]);

export const helloSchema = z
  .object({
    protocol: z.int(),
    firmware: z.string(),
    board: z.string(),
    boot: count,
    joints: z.array(z.string()).check(z.minLength(1), z.maxLength(64)),
    lower: z.array(z.number()),
    upper: z.array(z.number()),
    state_hz: z.number().check(z.nonnegative()),
    watchdog_ms: z.number().check(z.positive()),
    max_payload: z.int().check(z.positive()),
    // Announced since the firmware's step limit; an older firmware leaves them out.
    /** rad/s per joint: no target moves further than max_vel × tick_ms from the last. */
    max_vel: z.optional(z.array(z.number().check(z.positive()))),
    tick_ms: z.optional(z.number().check(z.positive())),
  })
  .check(
    z.refine((h) => h.lower.length === h.joints.length && h.upper.length === h.joints.length && (h.max_vel === undefined || h.max_vel.length === h.joints.length), {
      message: 'lower, upper and max_vel must have one entry per joint',
    }),
  );
export type Hello = z.infer<typeof helloSchema>;

export const firmwareRxSchema = z.object({
  ok: count,
  crc: count,
  malformed: count,
  overlong: count,
  runt: count,
  json: count,
});

export const stateSchema = z.object({
  seq: count,
  /** Firmware milliseconds since boot (wraps at 2^32). */
  t: count,
  torque: z.boolean(),
  pos: z.array(z.number()),
  vel: z.array(z.number()),
  gyro: vec3,
  accel: vec3,
  contacts: z.tuple([z.boolean(), z.boolean()]),
  battery_v: z.number(),
  quacks: count,
  /** How many set_targets the firmware applied since boot. */
  targets: count,
  rx: firmwareRxSchema,
  tx_dropped: count,
  /** set_targets calls the step limit cut short, and torque-off writes repeated (newer firmware). */
  limited: z.optional(count),
  torque_retries: z.optional(count),
});
export type BridgeState = z.infer<typeof stateSchema>;

export const faultSchema = z.object({
  code: z.string(),
  message: z.string(),
  t: count,
  torque: z.boolean(),
});
export type Fault = z.infer<typeof faultSchema>;

const empty = z.strictObject({});

/** Every method: its params (as this side sends them) and its result (as validated). */
export const METHODS = {
  hello: { params: empty, result: helloSchema },
  get_state: { params: empty, result: stateSchema },
  set_targets: {
    params: z.strictObject({ pos: z.array(z.number()), strict: z.optional(z.boolean()) }),
    result: z.object({ clamped: z.array(count), limited: z.optional(z.array(count)) }),
  },
  // Torque off is answered once the servos confirmed it (attempts: how many writes that took).
  torque: { params: z.strictObject({ on: z.boolean() }), result: z.object({ torque: z.boolean(), attempts: z.optional(count) }) },
  quack: { params: empty, result: z.object({ quacks: count }) },
  heartbeat: { params: empty, result: z.object({ t: count }) },
} as const;

export type Method = keyof typeof METHODS;
export type MethodParams<M extends Method> = z.infer<(typeof METHODS)[M]['params']>;
export type MethodResult<M extends Method> = z.infer<(typeof METHODS)[M]['result']>;

const rpcErrorSchema = z.object({ code: z.int(), message: z.string(), data: z.optional(z.unknown()) });

/**
 * The JSON-RPC envelope as the firmware sends it. Frames are checked by wire-check.ts's
 * checkEnvelope, which says the same (its contract test has this schema as the oracle).
 */
export const incomingSchema = z.union([
  z.object({
    jsonrpc: z.literal('2.0'),
    id: z.union([z.number(), z.string(), z.null()]),
    result: z.optional(z.unknown()),
    error: z.optional(rpcErrorSchema),
  }),
  z.object({ jsonrpc: z.literal('2.0'), method: z.string(), params: z.optional(z.unknown()) }),
]);

export type Incoming = Envelope;

const decoder = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

/** Classify one frame's payload, or undefined when it is not a JSON-RPC message we understand. */
export function parseIncoming(payload: Uint8Array): Incoming | undefined {
  let json: unknown;
  try {
    json = JSON.parse(decoder.decode(payload));
  } catch {
    return undefined;
  }
  return checkEnvelope(json);
}

/** The payload of a request (with id) or a notification (id undefined). */
export function encodeMessage(method: Method, params: Readonly<Record<string, unknown>>, id?: number): Uint8Array {
  const message = id === undefined ? { jsonrpc: '2.0', method, params } : { jsonrpc: '2.0', id, method, params };
  return encoder.encode(JSON.stringify(message));
}
