/**
 * What can go wrong on the serial link, as typed errors with one-line messages. The bridge does
 * not know about exit codes: commands map these to RuntimeError, the body to BodyError.
 */

export class BridgeError extends Error {
  override readonly name: string = 'BridgeError';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** The firmware answered with a JSON-RPC error (bad params, out of limit, torque off, …). */
export class RpcError extends BridgeError {
  override readonly name = 'RpcError';
  constructor(
    readonly method: string,
    readonly code: number,
    readonly remoteMessage: string,
    readonly data?: unknown,
  ) {
    super(`firmware refused ${method}: ${remoteMessage} (code ${code})`);
  }
}

export class RequestTimeoutError extends BridgeError {
  override readonly name = 'RequestTimeoutError';
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`no answer to ${method} within ${timeoutMs} ms`);
  }
}

/** The stream went away (unplugged, closed) while a request was waiting or before it was sent. */
export class LinkLostError extends BridgeError {
  override readonly name = 'LinkLostError';
}

/** Why a port that exists would not open, for whoever acts on it (health warns of a held port, and reads nothing). */
export type PortTrouble = 'held' | 'no-permission' | 'not-a-port';

/** The serial device does not exist or cannot be opened. */
export class PortError extends BridgeError {
  override readonly name = 'PortError';
  constructor(
    message: string,
    hint?: string,
    readonly trouble?: PortTrouble,
  ) {
    super(message, hint);
  }
}
