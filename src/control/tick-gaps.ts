/**
 * The moment right after a tick, in the control worker: the most time there is before the next
 * one is due. Work that must block the worker's thread while the loop runs (an ONNX session made
 * for a policy swapped between runs) waits for it, so a short block costs no tick. In lock-step
 * the loop does not tick between verbs and nothing waits on a real clock: the gap is now.
 */
import type { LoopMode } from './stats.js';

export class TickGaps {
  private waiting: (() => void)[] = [];
  private opened = false;

  constructor(private readonly mode: LoopMode) {}

  /** Resolves just after the next tick has ended (its next tick already armed). */
  next(): Promise<void> {
    if (this.mode === 'lockstep' || this.opened) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** A tick ended. setImmediate: after the driver has armed the next tick, whatever the tick awaited. */
  ticked(): void {
    if (this.waiting.length === 0) return;
    const due = this.waiting;
    this.waiting = [];
    setImmediate(() => due.forEach((resolve) => resolve()));
  }

  /** The loop is closing: nothing waits for a tick that will not come. */
  open(): void {
    this.opened = true;
    const due = this.waiting;
    this.waiting = [];
    due.forEach((resolve) => resolve());
  }
}
