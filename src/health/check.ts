/**
 * What a health check is: a name, and a question about this machine or the robot answered with
 * ok, warn or fail and one line of detail. The CLI's `quackd health` runs a list of them
 * (checks.ts); the `service` check brings back the running service's own lines (loop, link,
 * battery, store, broker) as entries of its report.
 */
import type { LoadedConfig } from '../config/file.js';
import type { Robot } from '../runtime/fleet.js';

/** `warn` is worth a look but fails nothing; only `fail` makes a health run unhealthy. */
export type HealthStatus = 'ok' | 'warn' | 'fail';

export interface HealthReport {
  readonly status: HealthStatus;
  /** One line, for a person over SSH and for a script's grep. */
  readonly detail: string;
  /** Lines the check brought back from elsewhere (the running service's own), listed after it. */
  readonly entries?: readonly HealthResult[];
}

export interface HealthResult extends HealthReport {
  readonly check: string;
}

/** The config file and the robot under check, loaded once before the checks run (setup.ts). */
export type HealthSetup =
  | { readonly ok: true; readonly config: LoadedConfig; readonly robot: Robot; /** A setting the file leaves to a run's flag (`port`). */ readonly missing?: string }
  | { readonly ok: false; /** The config's one-line error. */ readonly problem: string };

export interface HealthContext {
  readonly setup: HealthSetup;
  /** Where `quackd policy load` records slots. */
  readonly dataDir: string;
  /** The memory directory; undefined when memory is off. */
  readonly memoryDir?: string;
  /** Where the running service's control socket is looked for (src/service/socket/path.ts). */
  readonly env?: NodeJS.ProcessEnv;
}

export interface HealthCheck {
  readonly name: string;
  /** About something not every robot has (a servo bus): false leaves the check out, with no line. Absent: always run. */
  readonly applies?: (ctx: HealthContext) => boolean;
  /**
   * Answers within the runner's deadline or is reported as not answering; `signal` aborts when
   * that deadline passes, so a check holding a socket or a child can let go of it.
   */
  run(ctx: HealthContext, signal: AbortSignal): Promise<HealthReport>;
}

export const ok = (detail: string): HealthReport => ({ status: 'ok', detail });
export const warn = (detail: string): HealthReport => ({ status: 'warn', detail });
export const fail = (detail: string): HealthReport => ({ status: 'fail', detail });

/** Runs a check about the robot; without one (the config did not load) it is not checked, and says so. */
export function forRobot(ctx: HealthContext, check: (robot: Robot) => Promise<HealthReport>): Promise<HealthReport> {
  return ctx.setup.ok ? check(ctx.setup.robot) : Promise.resolve(warn('not checked: the config does not load'));
}
