/**
 * `quackd health`: one line per check (src/health), `name  ok|warn|fail  detail`, and exit 1 when
 * one fails, so a script or a watchdog can act on it. Looks only: moves nothing, writes nothing.
 */
import { numberFlag, parseFlags } from '../cli/args.js';
import { EXIT, UsageError } from '../cli/errors.js';
import { fitLine } from '../cli/fit.js';
import type { Invocation } from '../cli/invocation.js';
import { printable, type Output } from '../cli/output.js';
import { dataDir, memoryDir } from '../config/paths.js';
import type { HealthResult, HealthStatus } from '../health/check.js';
import { HEALTH_CHECKS } from '../health/checks.js';
import { CHECK_TIMEOUT_MS, healthy, runChecks } from '../health/run-checks.js';
import { loadHealthSetup } from '../health/setup.js';
import type { Command } from './command.js';

const help = `usage: quackd health [--robot NAME|KEY] [--timeout S] [--json]

Checks what a run of the robot needs, one line each: the config file and the robot, its model (a
microduck:mujoco robot's mjcf, compiled as a run opens it, with each policy slot's joints matched
against it), its trunk IMU (a servo-bus duck's BNO055: whether it answers, its mode and
calibration sys/gyro/acc/mag, a warning while the gyro is uncalibrated), which ONNX runtime runs its policies (native or WebAssembly), that every policy slot
loads, that the memory store opens (and how much it holds), and whether the service runs; when
it does, the service's own lines follow (each robot's loop, link and battery, its store, the MQTT
broker). Each says ok, warn or fail; exit 0 when nothing fails (a warning fails nothing), 1 when
one fails. Changes nothing. Each check has its own deadline: one that hangs is reported as not
answering while the others report.

options:
  --robot NAME   a robot of the fleet or a body key (default: the fleet's robot when it has
                 one alone, else microduck:sim2d, as for a run)
  --timeout S    seconds each check may take (default ${CHECK_TIMEOUT_MS / 1000}; more for a board that is
                 emulated or very busy)
  --json         one JSON array of {check, status, detail}

examples:
  quackd health
  quackd health --robot kitchen-duck --json`;

function paint(io: Output, status: HealthStatus, text: string): string {
  return status === 'ok' ? io.green(text) : status === 'warn' ? io.yellow(text) : io.red(text);
}

function print(io: Output, results: readonly HealthResult[]): void {
  const nameWidth = Math.max(...results.map((r) => r.check.length));
  const statusWidth = Math.max(...results.map((r) => r.status.length));
  for (const r of results) {
    // Padded before colouring: colour codes take no room on screen.
    const line = `${r.check.padEnd(nameWidth)}  ${paint(io, r.status, r.status.padEnd(statusWidth))}  ${printable(r.detail)}`;
    io.line(fitLine(line, io.width(), nameWidth + statusWidth + 4));
  }
}

export const healthCommand: Command = {
  name: 'health',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('health', argv, { robot: { type: 'string' }, timeout: { type: 'string' }, json: { type: 'boolean' } });
    if (positionals.length > 0) throw new UsageError(`health: unexpected argument "${positionals[0] ?? ''}"`, "see 'quackd health --help'");
    const timeoutMs = (numberFlag('timeout', flags.timeout, { min: 0.01 }) ?? CHECK_TIMEOUT_MS / 1000) * 1000;
    const setup = await loadHealthSetup(env, flags.robot);
    const results = await runChecks(HEALTH_CHECKS, { setup, dataDir: dataDir(env), memoryDir: memoryDir(undefined, env), env }, timeoutMs);
    if (flags.json === true) io.line(JSON.stringify(results.map(({ check, status, detail }) => ({ check, status, detail }))));
    else print(io, results);
    return healthy(results) ? EXIT.ok : EXIT.failure;
  },
};
