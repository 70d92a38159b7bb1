/**
 * What can go wrong on a servo bus, as typed errors with one-line messages that name the servo.
 * Like the bridge's errors they know nothing of exit codes: `bus scan` maps them to RuntimeError,
 * a body to its own failure. Each carries its facts (ids, instruction, timeout) for code to read.
 */
import type { ProtocolName } from './packet.js';
import type { InstructionName } from './protocol.js';

export class ServoBusError extends Error {
  override readonly name: string = 'ServoBusError';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

const who = (ids: readonly number[]): string => (ids.length === 1 ? `servo ${ids[0]}` : `servos ${ids.join(', ')}`);

/** Nothing came back in time from these servos: unplugged, wrong id, wrong baud, or no power. */
export class ServoTimeoutError extends ServoBusError {
  override readonly name = 'ServoTimeoutError';
  constructor(
    readonly ids: readonly number[],
    readonly instruction: InstructionName,
    readonly timeoutMs: number,
    /** The replies that did come, for a sync read that was partly answered. */
    readonly answered: readonly number[] = [],
  ) {
    super(`${who(ids)} did not answer ${instruction} within ${timeoutMs} ms`);
  }
}

/** Something answered but the reply was damaged (bad checksum or torn): a noisy or mis-wired bus, or two servos with one id. */
export class ServoGarbledError extends ServoBusError {
  override readonly name = 'ServoGarbledError';
  constructor(
    readonly ids: readonly number[],
    readonly instruction: InstructionName,
    readonly answered: readonly number[] = [],
  ) {
    super(`${who(ids)}' reply to ${instruction} was garbled (bad checksum or cut short)`, 'check the cable, the baud rate, and that no two servos share an id');
  }
}

/** The servo answered and refused the instruction (Dynamixel: data range, access, …). */
export class ServoRefusedError extends ServoBusError {
  override readonly name = 'ServoRefusedError';
  constructor(
    readonly id: number,
    readonly instruction: InstructionName,
    readonly reason: string,
  ) {
    super(`servo ${id} refused ${instruction}: ${reason}`);
  }
}

/** The link went away (unplugged, closed) while a transaction waited or before it was sent. */
export class BusLostError extends ServoBusError {
  override readonly name = 'BusLostError';
}

/**
 * Not one of the servos looked for answered: the bus's rate, protocol or power rather than one
 * servo's cable. Its facts only; a command says what to try.
 */
export class SilentBusError extends ServoBusError {
  override readonly name = 'SilentBusError';
  constructor(
    readonly protocol: ProtocolName,
    readonly port: string,
    readonly baud: number,
    readonly ids: readonly number[],
  ) {
    super(`no ${protocol} servo answered on ${port} at ${baud} baud`);
  }
}
