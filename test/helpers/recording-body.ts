/**
 * Wraps a real body and records every intent that reached it, so a test can prove that a
 * refused, denied or dry-run verb never did.
 */
import type { Body, Intent, VerbResult } from '../../src/bodies/body.js';

export interface RecordingBody extends Body {
  readonly performed: Intent[];
  readonly stops: number;
}

export function recording(inner: Body): RecordingBody {
  const performed: Intent[] = [];
  let stops = 0;
  return {
    key: inner.key,
    performed,
    get stops() {
      return stops;
    },
    observe: () => inner.observe(),
    perform: (intent: Intent, signal?: AbortSignal): Promise<VerbResult> => {
      performed.push(intent);
      return inner.perform(intent, signal);
    },
    frame: () => inner.frame(),
    metrics: () => inner.metrics(),
    stop: () => {
      stops += 1;
      return inner.stop();
    },
    close: () => inner.close(),
  };
}
