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

export interface StreamListeners {
  data(chunk: Buffer): void;
  close(): void;
  error(err: Error): void;
}

/** Listens to a stream's data, close and error; the function returned stops listening. */
export function listenTo(stream: Duplex, on: StreamListeners): () => void {
  const data = (chunk: Buffer): void => on.data(chunk);
  const close = (): void => on.close();
  const error = (err: Error): void => on.error(err);
  stream.on('data', data);
  stream.on('close', close);
  stream.on('error', error);
  return () => {
    stream.off('data', data);
    stream.off('close', close);
    stream.off('error', error);
  };
}
