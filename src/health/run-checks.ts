/**
 * Runs health checks side by side, each under its own deadline, so one that hangs (a store held
 * by a stuck process, later a service that does not answer) is reported as not answering while
 * every other check still reports. A check that throws is a failure in one line, never a crash.
 */
import type { HealthCheck, HealthContext, HealthReport, HealthResult } from './check.js';
import { fail } from './check.js';

/** Per check: loading five policies on WebAssembly on a Pi takes a few seconds, not ten. */
export const CHECK_TIMEOUT_MS = 10_000;

const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

async function runOne(check: HealthCheck, ctx: HealthContext, timeoutMs: number): Promise<HealthResult[]> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<HealthReport>((resolve) => {
    timer = setTimeout(() => {
      abort.abort();
      resolve(fail(`no answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
  });
  try {
    const report = await Promise.race([check.run(ctx, abort.signal).catch((err: unknown) => fail(`the check failed: ${firstLine(err)}`)), deadline]);
    const { entries, ...own } = report;
    return [{ check: check.name, ...own }, ...(entries ?? [])];
  } finally {
    clearTimeout(timer);
  }
}

/** Every check's result, in the list's order, each followed by the entries it brought back. */
export async function runChecks(checks: readonly HealthCheck[], ctx: HealthContext, timeoutMs = CHECK_TIMEOUT_MS): Promise<HealthResult[]> {
  return (await Promise.all(checks.map((c) => runOne(c, ctx, timeoutMs)))).flat();
}

/** Healthy when nothing fails; a warning fails nothing. */
export function healthy(results: readonly HealthResult[]): boolean {
  return results.every((r) => r.status !== 'fail');
}
