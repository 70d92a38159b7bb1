/**
 * The two servo protocols behind one small interface, so the bus, `bus scan` and the simulator
 * are written once: how to frame each instruction, how to read a status packet out of a decoded
 * one, what the error byte means, and how many bytes a reply takes on the wire (for timeouts and
 * for the bench's wire time). Pure.
 */
import {
  DYNAMIXEL,
  DYNAMIXEL_OVERHEAD,
  DynamixelDecoder,
  dynamixelAlarms,
  dynamixelPing,
  dynamixelRead,
  dynamixelRefusal,
  dynamixelStatus,
  dynamixelSyncRead,
  dynamixelSyncWrite,
  dynamixelWrite,
} from './dynamixel.js';
import { FEETECH, FEETECH_OVERHEAD, FeetechDecoder, feetechAlarms, feetechPing, feetechRead, feetechStatus, feetechSyncRead, feetechSyncWrite, feetechWrite } from './feetech.js';
import type { PacketDecoder, ProtocolName, RawPacket, StatusPacket } from './packet.js';

export type InstructionName = 'ping' | 'read' | 'write' | 'reg write' | 'action' | 'reboot' | 'sync read' | 'sync write';

export interface ServoProtocol {
  readonly name: ProtocolName;
  /** The instruction bytes, by name (the simulator and the record of what was sent read them back). */
  readonly instructions: Readonly<Record<string, number>>;
  ping(id: number): Uint8Array;
  read(id: number, address: number, length: number): Uint8Array;
  write(id: number, address: number, data: ArrayLike<number>): Uint8Array;
  syncRead(ids: readonly number[], address: number, length: number): Uint8Array;
  syncWrite(address: number, length: number, entries: ReadonlyArray<readonly [number, ArrayLike<number>]>): Uint8Array;
  /** A servo's reply, framed: the simulator's side. */
  status(id: number, error: number, data: ArrayLike<number>): Uint8Array;
  decoder(): PacketDecoder;
  /** A decoded packet as a status reply, or undefined when it is not one (an instruction echoed by the adapter). */
  asStatus(packet: RawPacket): StatusPacket | undefined;
  /** The name of an instruction byte, for logs and the simulator's record. */
  instructionName(code: number): InstructionName | `0x${string}`;
  /** Words for the error byte's alarm bits (overload, overheat, voltage…): the servo did what it was told. */
  alarms(error: number): string[];
  /** Why the servo refused the instruction, or undefined: Feetech servos never refuse, they raise alarms. */
  refusal(error: number): string | undefined;
  /** Bytes on the wire for a status reply carrying `dataLength` bytes (before any byte stuffing). */
  statusBytes(dataLength: number): number;
  /** Whether a broadcast ping gets replies (Dynamixel: every servo answers in turn; Feetech: none). */
  readonly broadcastPingAnswers: boolean;
}

function namer(table: Readonly<Record<string, number>>): (code: number) => InstructionName | `0x${string}` {
  const names = new Map<number, InstructionName>();
  const spoken: Readonly<Record<string, InstructionName>> = { ping: 'ping', read: 'read', write: 'write', regWrite: 'reg write', action: 'action', reboot: 'reboot', syncRead: 'sync read', syncWrite: 'sync write' };
  for (const [key, code] of Object.entries(table)) {
    const name = spoken[key];
    if (name !== undefined) names.set(code, name);
  }
  return (code) => names.get(code) ?? `0x${code.toString(16).padStart(2, '0')}`;
}

export const feetech: ServoProtocol = {
  name: 'feetech',
  instructions: FEETECH,
  ping: feetechPing,
  read: feetechRead,
  write: feetechWrite,
  syncRead: feetechSyncRead,
  syncWrite: feetechSyncWrite,
  status: feetechStatus,
  decoder: () => new FeetechDecoder(),
  asStatus: (p) => ({ id: p.id, error: p.code, data: p.params }),
  instructionName: namer(FEETECH),
  alarms: feetechAlarms,
  refusal: () => undefined,
  statusBytes: (n) => FEETECH_OVERHEAD + n,
  broadcastPingAnswers: false,
};

export const dynamixel: ServoProtocol = {
  name: 'dynamixel',
  instructions: DYNAMIXEL,
  ping: dynamixelPing,
  read: dynamixelRead,
  write: dynamixelWrite,
  syncRead: dynamixelSyncRead,
  syncWrite: dynamixelSyncWrite,
  status: dynamixelStatus,
  decoder: () => new DynamixelDecoder(),
  asStatus: (p) => (p.code === DYNAMIXEL.status && p.params.length >= 1 ? { id: p.id, error: p.params[0] ?? 0, data: p.params.subarray(1) } : undefined),
  instructionName: namer(DYNAMIXEL),
  alarms: dynamixelAlarms,
  refusal: dynamixelRefusal,
  // instruction 0x55 and the error byte ride on top of the frame's overhead
  statusBytes: (n) => DYNAMIXEL_OVERHEAD + 1 + n,
  broadcastPingAnswers: true,
};

export function protocolNamed(name: ProtocolName): ServoProtocol {
  return name === 'feetech' ? feetech : dynamixel;
}
