/**
 * Reopening a serial device that went away (USB unplugged, the board rebooting), for both links
 * (serialport's on the main thread, the worker's plain tty): the same path is tried every
 * `retryMs` until its device node is back and opens, or the link is closed.
 */
import { existsSync } from 'node:fs';

export class Reopener<T> {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly path: string,
    private readonly retryMs: number,
    private readonly open: () => Promise<T>,
    private readonly shut: (handle: T) => Promise<void>,
    /** The device is open again: the link takes it. */
    private readonly reopened: (handle: T) => void,
  ) {}

  /** One more try after `retryMs`. */
  schedule(): void {
    if (!this.stopped) this.timer = setTimeout(() => void this.attempt(), this.retryMs);
  }

  /** No more tries: the link is closed. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async attempt(): Promise<void> {
    this.timer = undefined;
    if (this.stopped) return;
    if (existsSync(this.path)) {
      try {
        const handle = await this.open();
        if (this.stopped) return void (await this.shut(handle));
        this.reopened(handle);
        return;
      } catch {
        // back but not ready (udev still setting permissions), or someone else has it: try again
      }
    }
    this.schedule();
  }
}
