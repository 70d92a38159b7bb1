/**
 * One LLM call with a deadline and retries, shared by the OpenAI-compatible and Anthropic
 * providers. The SDKs' own retry loops are switched off (maxRetries: 0) so there is exactly one
 * mechanism: theirs sleeps through Ctrl-C and obeys any Retry-After, however long. Here every
 * wait is abortable, a Retry-After beyond `maxRetryAfterMs` ends the call instead of stalling
 * the robot, and the per-attempt deadline covers the whole response, body included.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { logger } from '../../log.js';
import { ProviderError } from './provider.js';

export interface RetryPolicy {
  /** Extra attempts after the first (0: no retries). */
  readonly retries: number;
  /** Deadline for one attempt, from request to the last byte of the response. */
  readonly timeoutMs: number;
  /** First backoff; doubles per retry up to `maxDelayMs`, with jitter. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  /** A server asking for a longer wait than this ends the call (a robot should not idle for minutes). */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: Omit<RetryPolicy, 'retries' | 'timeoutMs'> = {
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 30_000,
};

/** How a provider reads one failed attempt. */
export interface AttemptFailure {
  readonly retryable: boolean;
  /** One line for people, already free of secrets; becomes the ProviderError message. */
  readonly message: string;
  /** What the server asked for (Retry-After), if anything. */
  readonly retryAfterMs?: number;
}

export interface CallOptions {
  readonly policy: RetryPolicy;
  /** The run's signal: Ctrl-C or the seconds budget. */
  readonly signal: AbortSignal;
  /** `openai`, `anthropic`: the prefix of every message. */
  readonly label: string;
  /** Reads an error thrown by an attempt; undefined means "not a provider failure" (a bug): rethrown as is. */
  readonly describe: (err: unknown) => AttemptFailure | undefined;
  /** For tests: a fixed jitter source. */
  readonly random?: () => number;
}

/** The error a cancelled call rejects with: the signal's own reason when it is an Error. */
export function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The call was cancelled', 'AbortError');
}

/** Exponential backoff with "equal jitter": half fixed, half random, so retries of many clients spread out. */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;

export async function callWithRetries<T>(attempt: (signal: AbortSignal) => Promise<T>, options: CallOptions): Promise<T> {
  const { policy, signal, label } = options;
  const log = logger('pilot');
  for (let retry = 0; ; retry += 1) {
    if (signal.aborted) throw abortError(signal);
    const deadline = new AbortController();
    // Node caps timers at 2^31-1 ms; a larger one would fire at once.
    const timer = setTimeout(() => deadline.abort(), Math.min(policy.timeoutMs, 2 ** 31 - 1));
    let failure: AttemptFailure | undefined;
    const started = performance.now();
    log.debug({ provider: label, attempt: retry + 1 }, 'provider call');
    try {
      const answer = await attempt(AbortSignal.any([signal, deadline.signal]));
      log.debug({ provider: label, ms: Math.round(performance.now() - started) }, 'provider answered');
      return answer;
    } catch (err) {
      log.debug({ provider: label, ms: Math.round(performance.now() - started), err }, 'provider call failed');
      if (signal.aborted) throw abortError(signal);
      // Not retried: a model that needed longer than the deadline will most likely need it again.
      if (deadline.signal.aborted) {
        throw new ProviderError(`${label}: no answer within ${seconds(policy.timeoutMs)} (raise --timeout or pilot.timeout_s)`);
      }
      failure = options.describe(err);
      if (failure === undefined) throw err;
    } finally {
      clearTimeout(timer);
    }
    const tries = retry === 0 ? '' : ` (after ${retry + 1} attempts)`;
    if (!failure.retryable || retry >= policy.retries) throw new ProviderError(`${failure.message}${tries}`);
    if (failure.retryAfterMs !== undefined && failure.retryAfterMs > policy.maxRetryAfterMs) {
      throw new ProviderError(`${failure.message}; the server asks to wait ${seconds(failure.retryAfterMs)}, longer than quackd waits`);
    }
    const delay = failure.retryAfterMs ?? backoffMs(retry, policy, options.random);
    log.warn(`${failure.message}; retry ${retry + 1}/${policy.retries} in ${seconds(delay)}`);
    try {
      await sleep(delay, undefined, { signal });
    } catch {
      throw abortError(signal);
    }
  }
}
