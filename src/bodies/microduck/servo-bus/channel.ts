/**
 * The body's few words to the bus plant in the control worker (which owns the port): switch
 * torque and read it back from every servo; mark a verb's start, from which the plant tallies its
 * late answers afresh (late-tally.ts). A named BroadcastChannel, as the bridge's
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

type Ask = { readonly call: 'torque'; readonly on: boolean } | { readonly call: 'markLate' };
type Call = Ask & { readonly id: number };
type Reply = { readonly id: number; readonly result?: TorqueReadBack | null; readonly error?: string };

/** What the worker does on the body's word. */
export interface ServoBusCalls {
  torque(on: boolean): Promise<TorqueReadBack>;
  markLate(): void;
}

/** Worker side: answer the body's calls. Returns the function that stops serving. */
export function serveServoBus(name: string, calls: ServoBusCalls): () => void {
  const channel = new BroadcastChannel(name);
  channel.unref();
  channel.onmessage = (event) => {
    const m = (event as { readonly data: Call }).data;
    if (m.call === 'markLate') {
      calls.markLate();
      channel.postMessage({ id: m.id, result: null } satisfies Reply);
      return;
    }
    void calls.torque(m.on).then(
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
  private readonly waiting = new Map<number, { resolve(r: TorqueReadBack | null): void; reject(e: Error): void; timer: NodeJS.Timeout }>();

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
    return this.ask({ call: 'torque', on }, `torque ${on ? 'on' : 'off'}`) as Promise<TorqueReadBack>;
  }

  /** A verb begins: the plant's since-mark late figures start afresh once this resolves. */
  async markLate(): Promise<void> {
    await this.ask({ call: 'markLate' }, 'the mark of a verb');
  }

  private ask(call: Ask, what: string): Promise<TorqueReadBack | null> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new Error(`the control worker did not answer ${what} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.waiting.set(id, { resolve, reject, timer });
      this.channel.postMessage({ id, ...call } satisfies Call);
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
