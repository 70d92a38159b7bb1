/**
 * The body catalog: which `adapter:backend` keys exist, which verbs each can perform, and a lazy
 * loader per backend so `quackd ducks` never loads a simulator, serialport or onnxruntime.
 */
import type { Body, BodyKey, BodyOptions } from './body.js';

export interface BodyEntry {
  readonly key: BodyKey;
  readonly description: string;
  /** Body verbs this backend performs (declare_* and memory verbs are the pilot's, not the body's). */
  readonly verbs: readonly string[];
  /** Settings a run must give (e.g. `port` for a serial body), checked before anything opens. */
  readonly requires?: readonly string[];
  readonly load: (options: BodyOptions) => Promise<Body>;
}

export const DEFAULT_BODY: BodyKey = 'microduck:sim2d';

const entries: readonly BodyEntry[] = [
  {
    key: 'microduck:sim2d',
    description: 'Microduck in a deterministic 2D living room (walls, a sofa, a ball)',
    verbs: ['search_scan', 'turn', 'walk', 'kick', 'quack'],
    load: async (o) => (await import('./microduck/sim2d/sim2d-body.js')).createSim2dBody(o),
  },
  {
    key: 'microduck:jsonrpc',
    description: 'a real Microduck over USB serial (quackd-fw); needs --port, e.g. /dev/serial/by-id/usb-…',
    verbs: ['quack', 'torque', 'walk', 'turn', 'kick', 'search_scan'],
    requires: ['port'],
    load: async (o) => (await import('./microduck/jsonrpc/jsonrpc-body.js')).createJsonRpcBody(o),
  },
];

export function listBodies(): readonly BodyEntry[] {
  return entries;
}

export function findBody(key: string): BodyEntry | undefined {
  return entries.find((e) => e.key === key);
}
