/**
 * What a serial edge (serial.ts on the main thread, tty.ts in the control worker) hands its stream
 * to: the bridge's client, or a servo bus. Attached when the port opens or comes back, detached
 * with the reason when it goes; a polled link passes its read and feeds what it reads.
 */
import type { Duplex } from 'node:stream';

export interface LinkUser {
  attach(stream: Duplex, pull?: () => void): void;
  detach(reason?: Error): void;
  feed(chunk: Uint8Array): void;
}
