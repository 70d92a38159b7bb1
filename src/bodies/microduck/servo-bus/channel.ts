/**
 * The body's few questions to the bus plant in the control worker (which owns the port): switch
 * torque and read it back from every servo. A named BroadcastChannel, as the bridge's
 * (src/bridge/channel.ts); only data crosses.
 */
import { BroadcastChannel } from 'node:worker_threads';

/** What torque on or off did, read back from every servo. */
export interface TorqueReadBack {
  /** The state asked for. */
  readonly asked: boolean;
  /** Joints whose servo reads the other state after the write. */
  readonly stuck: readonly string[];
  /** Joints whose servo did not answer the read-back (`name (id N)`). */
  readonly silent: readonly string[];
}

type Call = { readonly id: number; readonly call: 'torque'; readonly on: boolean };
type Reply = { readonly id: number; readonly result?: TorqueReadBack; readonly error?: string };

/** Worker side: answer the body's calls with `torque`. Returns the function that stops serving. */
export function serveServoBus(name: string, torque: (on: boolean) => Promise<TorqueReadBack>): () => void {
  const channel = new BroadcastChannel(name);
  channel.unref();
  channel.onmessage = (event) => {
    const m = (event as { readonly data: Call }).data;
    void torque(m.on).then(
      (result) => channel.postMessage({ id: m.id, result } satisfies Reply),
      (err: unknown) => channel.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) } satisfies Reply),
    );
  };
  return () => channel.close();
}

/** Main-thread side. */
export class RemoteServoBus {
  private readonly channel: BroadcastChannel;
  private next = 1;
  private readonly waiting = new Map<number, { resolve(r: TorqueReadBack): void; reject(e: Error): void; timer: NodeJS.Timeout }>();

  constructor(
    name: string,
    private readonly timeoutMs: number,
  ) {
    this.channel = new BroadcastChannel(name);
    this.channel.unref();
    this.channel.onmessage = (event) => {
      const m = (event as { readonly data: Reply }).data;
      const w = this.waiting.get(m.id);
      if (w === undefined) return;
      this.waiting.delete(m.id);
      clearTimeout(w.timer);
      if (m.result !== undefined) w.resolve(m.result);
      else w.reject(new Error(m.error ?? 'no answer'));
    };
  }

  torque(on: boolean): Promise<TorqueReadBack> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`the control worker did not answer torque ${on ? 'on' : 'off'} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      this.channel.postMessage({ id, call: 'torque', on } satisfies Call);
    });
  }

  close(): void {
    for (const w of this.waiting.values()) {
      clearTimeout(w.timer);
      w.reject(new Error('the servo bus channel closed'));
    }
    this.waiting.clear();
    this.channel.close();
  }
}
