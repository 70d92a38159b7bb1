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

const SEVERITY = { ok: 0, warn: 1, fail: 2 } as const;

/**
 * Every check's result, in the list's order, each followed by the entries it brought back. Two
 * lines about one thing (the CLI's look at the store and the running service's own) are one
 * line, in the first one's place: the worse of the two, or the first when they agree.
 */
export async function runChecks(checks: readonly HealthCheck[], ctx: HealthContext, timeoutMs = CHECK_TIMEOUT_MS): Promise<HealthResult[]> {
  const results: HealthResult[] = [];
  const at = new Map<string, number>();
  for (const r of (await Promise.all(checks.filter((c) => c.applies?.(ctx) ?? true).map((c) => runOne(c, ctx, timeoutMs)))).flat()) {
    const i = at.get(r.check);
    if (i === undefined) {
      at.set(r.check, results.push(r) - 1);
      continue;
    }
    const kept = results[i];
    if (kept !== undefined && SEVERITY[r.status] > SEVERITY[kept.status]) results[i] = r;
  }
  return results;
}

/** Healthy when nothing fails; a warning fails nothing. */
export function healthy(results: readonly HealthResult[]): boolean {
  return results.every((r) => r.status !== 'fail');
}
