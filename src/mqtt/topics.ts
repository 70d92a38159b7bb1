/**
 * Every topic quackd publishes or listens to, in zigbee2mqtt's layout: `<base>/bridge/...` for the
 * service itself, `<base>/<robot>/...` for each robot. One place, so a topic is never spelt twice.
 */

/** A robot named `bridge` would share the bridge's topics: MQTT leaves it out (and says so). */
export const RESERVED_ROBOT_NAMES: readonly string[] = ['bridge'];

export const BRIDGE_COMMANDS = ['run', 'stop', 'confirm', 'torque', 'status', 'health', 'restart'] as const;
export type BridgeCommand = (typeof BRIDGE_COMMANDS)[number];

export interface Topics {
  readonly bridgeState: string;
  readonly bridgeHealth: string;
  /** The robots quackd published last (retained): how discovery of a robot since removed is cleared. */
  readonly bridgeDevices: string;
  /** Which quackd this is (retained): version, commit, its config without secrets, its robots. */
  readonly bridgeInfo: string;
  /** The service's log lines at info and above, as `{level, message, namespace}`. */
  readonly bridgeLogging: string;
  /** What happened to the fleet: a robot joined or left, a run started or ended. */
  readonly bridgeEvent: string;
  bridgeRequest(command: string): string;
  bridgeResponse(command: string): string;
  readonly bridgeRequestFilter: string;
  robotState(robot: string): string;
  robotAvailability(robot: string): string;
  robotEvent(robot: string): string;
  robotSet(robot: string): string;
  robotSetResponse(robot: string): string;
  readonly robotSetFilter: string;
  /** Asks for the robot's state now: it is published again on robotState. */
  robotGet(robot: string): string;
  readonly robotGetFilter: string;
}

export function topicsFor(base: string): Topics {
  return {
    bridgeState: `${base}/bridge/state`,
    bridgeHealth: `${base}/bridge/health`,
    bridgeDevices: `${base}/bridge/devices`,
    bridgeInfo: `${base}/bridge/info`,
    bridgeLogging: `${base}/bridge/logging`,
    bridgeEvent: `${base}/bridge/event`,
    bridgeRequest: (c) => `${base}/bridge/request/${c}`,
    bridgeResponse: (c) => `${base}/bridge/response/${c}`,
    bridgeRequestFilter: `${base}/bridge/request/+`,
    robotState: (r) => `${base}/${r}/state`,
    robotAvailability: (r) => `${base}/${r}/availability`,
    robotEvent: (r) => `${base}/${r}/event`,
    robotSet: (r) => `${base}/${r}/set`,
    robotSetResponse: (r) => `${base}/${r}/set/response`,
    robotSetFilter: `${base}/+/set`,
    robotGet: (r) => `${base}/${r}/get`,
    robotGetFilter: `${base}/+/get`,
  };
}

/** What an incoming topic is: a robot's `set` or `get`, a bridge request, or something else to ignore. */
export type Incoming = { readonly kind: 'set' | 'get'; readonly robot: string } | { readonly kind: 'request'; readonly command: string } | { readonly kind: 'other' };

export function parseIncoming(base: string, topic: string): Incoming {
  if (!topic.startsWith(`${base}/`)) return { kind: 'other' };
  const levels = topic.slice(base.length + 1).split('/');
  if (levels.length === 3 && levels[0] === 'bridge' && levels[1] === 'request' && levels[2] !== undefined) return { kind: 'request', command: levels[2] };
  const [robot, verb] = levels;
  if (levels.length === 2 && (verb === 'set' || verb === 'get') && robot !== undefined && robot !== 'bridge') return { kind: verb, robot };
  return { kind: 'other' };
}
