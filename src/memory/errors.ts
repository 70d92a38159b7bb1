/** The memory store's failures, shared by the main thread, the writer worker and their callers. */

/** The store cannot be opened or written (permissions, corruption, disk full). */
export class StoreError extends Error {
  override readonly name: string = 'StoreError';
}

/** Another process held the store longer than the caller would wait; nothing was written. */
export class MemoryBusy extends StoreError {
  override readonly name = 'MemoryBusy';
  constructor(readonly waitedMs: number) {
    super(`memory busy: another quackd process has held the memory store for ${(waitedMs / 1000).toFixed(1)} s`);
  }
}
