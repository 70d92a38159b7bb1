/**
 * `quackd run`: one deliberation run of a duck on a body. Parses flags, builds the run request,
 * prints steps and the outcome; the run itself lives in src/run.
 */
import { readFileSync } from 'node:fs';
import { numberFlag, parseFlags, type Parsed } from '../cli/args.js';
import type { Output } from '../cli/output.js';
import { runThroughService } from '../cli/service-run.js';
import { askService } from '../service/socket/client.js';
import type { Budgets } from '../ducks/duck.js';
import { PILOT_FLAGS, pilotFlags } from '../cli/pilot-flags.js';
import { onStopSignals } from '../cli/signals.js';
import { EXIT, InputError, UsageError } from '../cli/errors.js';
import { didYouMean } from '../text/suggest.js';
import { DEFAULT_BODY, listBodies, robotCan } from '../bodies/index.js';
import { loadConfigFile, type ConfigFile } from '../config/file.js';
import { retentionPolicy } from '../transcript/retention.js';
import { dataDir, memoryDir, transcriptsDir, userDucksDir } from '../config/paths.js';
import { runtimeEmbeddings } from '../memory/embedding-settings.js';
import { recordingConfig } from '../recording/runtime-config.js';
import type { RunMemory } from '../pilot/run-memory.js';
import { AmbiguousRobot, RobotSettingsError, UnknownRobot, robotLabel, type Robot } from '../runtime/fleet.js';
import { createRuntime, type Runtime } from '../runtime/runtime.js';
import type { Duck } from '../ducks/duck.js';
import { checkDuckForBody } from '../ducks/check.js';
import { findDuck } from '../ducks/find.js';
import { goalDuck } from '../ducks/goal.js';
import { readScript } from '../ducks/script.js';
import { createProvider } from '../pilot/providers/index.js';
import { pilotLabel, type Provider } from '../pilot/providers/provider.js';
import { chooseGate } from '../safety/gate.js';
import { printHeader, printOutcome, printWarnings, stepPrinter } from '../cli/run-printer.js';
import { runWarnings } from '../bodies/policy-warnings.js';
import type { RunReport } from '../run/start-run.js';
import type { Command } from './command.js';
import type { Invocation } from '../cli/invocation.js';

const flags = {
  goal: { type: 'string' },
  robot: { type: 'string' },
  seed: { type: 'string' },
  ...PILOT_FLAGS,
  port: { type: 'string' },
  baud: { type: 'string' },
  steps: { type: 'string' },
  'llm-calls': { type: 'string' },
  seconds: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'no-memory': { type: 'boolean' },
  'no-record': { type: 'boolean' },
  'memory-dir': { type: 'string' },
  yes: { type: 'boolean', short: 'y' },
  json: { type: 'boolean' },
  local: { type: 'boolean' },
} as const;

export type RunFlags = Parsed<typeof flags>['flags'];

/** Flags of a run in this process: the service runs with its own robots' ports, its pilot and its memory. */
const LOCAL_ONLY = ['port', 'baud', 'memory-dir', 'no-memory', 'no-record', 'provider', 'model', 'base-url', 'timeout', 'retries', 'key-file'] as const;

const help = `usage: quackd run <duck | path.duck> [options]
       quackd run --goal "text" [options]

Runs one deliberation of a duck on a body: the pilot reads observations and calls verbs; quackd's
safety executor admits only the duck's verbs, within its budgets, behind its confirmation gates.

options:
  --robot NAME             a robot of the fleet (robots: in config.yaml) or a body key
                           (adapter:backend; default: the duck's robot, else ${DEFAULT_BODY});
                           a key means the fleet's one robot of that body, and the header says so
  --seed N                 the simulator's layout (default 7)
  --port PATH, --baud N    the serial link of a real body (microduck:jsonrpc), e.g.
                           --port /dev/serial/by-id/usb-…-if00 (baud default 1000000)
  --provider NAME          the pilot: fake (default, scripted), script (plays the duck's numbered
                           lines as verb calls: 1. walk 1.0), openai, anthropic
  --model NAME             the model the provider asks for
  --base-url URL           an OpenAI-compatible server (Ollama, llama.cpp, vLLM …) or Anthropic's
                           (flags > QUACKD_PROVIDER/QUACKD_MODEL/QUACKD_BASE_URL > ~/.quackd/config.yaml)
  --timeout S              seconds per LLM call (default 60)
  --retries N              extra attempts on 429, 5xx and dropped connections (default 2)
  --key-file PATH          a 0600 file holding the API key (else OPENAI_API_KEY / ANTHROPIC_API_KEY)
  --steps N, --llm-calls N, --seconds S   override the duck's budgets
  --dry-run                send nothing to the body; results are invented and marked; nothing is saved
  --no-memory              one fresh run: no recall, no remember, no episode; the store is untouched
  --no-record              no recording of this run (~/.quackd/recordings/<run id>.mcap, for Foxglove)
  --memory-dir DIR         robot memory (default ~/.quackd/memory, or QUACKD_MEMORY_DIR)
  --yes, -y                open every confirmation gate (otherwise asked on a TTY, denied without one)
  --json                   print the outcome as one JSON object (no step lines)
  --local                  run in this process even when a 'quackd serve' is running

When a 'quackd serve' is running (its control socket answers), the run goes through it: the
service holds the robots and runs the duck with its own pilot and memory, and this terminal shows
the steps, asks its gates and stops it on Ctrl-C. The flags of a run in this process (--port,
--baud, --memory-dir, --no-memory, --no-record and the pilot's) are refused then; --local runs here instead
(a robot the service holds stays the service's).

A flock duck (flock: in its front matter, e.g. flock-find-ball) runs each of its members at once,
each with its own pilot, budgets and transcript, under a coordinator that runs here; --seed is
the first member's (the next gets one more), and --robot, --port and --baud do not apply.

examples:
  quackd run find-and-kick
  quackd run flock-find-ball
  quackd run hello-world --dry-run
  quackd run ./my.duck --robot microduck:sim2d --seed 3 --json
  quackd run find-and-kick --provider openai --base-url http://localhost:11434/v1 --model qwen2.5-coder:7b`;

/** The robot of this run: --robot (a fleet name or a body key), else the duck's, else the default. */
export function resolveRobot(runtime: Runtime, flag: string | undefined, duck: Duck | undefined, settings: Record<string, unknown>, command = 'run'): Robot {
  const name = flag ?? duck?.robot ?? DEFAULT_BODY;
  try {
    return runtime.robot(name, settings);
  } catch (err) {
    // Say where the name came from: the flag, or the duck's own `robot:` line.
    const where = flag === undefined && duck !== undefined ? `${duck.source}:${duck.lines.robot ?? 1}: robot: ` : '';
    if (err instanceof AmbiguousRobot) throw new InputError(`${where}${err.message}`, `e.g. --robot ${err.robots[0] ?? ''}`);
    if (err instanceof UnknownRobot) {
      const known = [...runtime.fleet.list().map((r) => r.name), ...listBodies().map((b) => b.key)];
      throw new InputError(`${where}unknown body "${name}"${didYouMean(name, known)}`, "'quackd bodies' lists them");
    }
    if (err instanceof RobotSettingsError) {
      if (err.problem === 'missing') throw new UsageError(`${command}: ${err.robot} needs --${err.setting}`, err.setting === 'port' ? 'e.g. --port /dev/serial/by-id/usb-…-if00' : undefined);
      if (err.problem === 'not-taken') throw new UsageError(`${command}: --${err.setting} is for a serial body; ${err.robot} takes none`, 'e.g. --robot microduck:jsonrpc');
      throw new UsageError(`${command}: --${err.setting}: ${err.message}`);
    }
    throw err;
  }
}

/** The budgets the flags override, checked against the ranges a .duck file may give. */
function budgetFlags(f: { steps?: string; 'llm-calls'?: string; seconds?: string }): Partial<Budgets> {
  const steps = numberFlag('steps', f.steps, { int: true, min: 1, max: 1000 });
  const llm = numberFlag('llm-calls', f['llm-calls'], { int: true, min: 1, max: 5000 });
  const seconds = numberFlag('seconds', f.seconds, { min: 1, max: 86_400 });
  return { ...(steps !== undefined ? { steps } : {}), ...(llm !== undefined ? { llm_calls: llm } : {}), ...(seconds !== undefined ? { seconds } : {}) };
}

export function withBudgets(duck: Duck, f: { steps?: string; 'llm-calls'?: string; seconds?: string }): Duck {
  return { ...duck, budgets: { ...duck.budgets, ...budgetFlags(f) } };
}

export function printReport(io: Output, report: RunReport, json: boolean): void {
  if (json) {
    io.line(JSON.stringify({ ended: new Date().toISOString(), run: report.runId, duck: report.duck, robot: report.robotName ?? report.robot, body: report.robot, outcome: report.outcome.status, reason: report.outcome.reason, steps: report.steps, llmCalls: report.llmCalls, seconds: report.seconds, usage: report.usage, ...(report.pictures !== undefined ? { pictures: report.pictures } : {}), dryRun: report.dryRun, transcript: report.transcriptPath }));
  } else {
    printOutcome(io, report);
  }
}

/**
 * The run through a running service, or undefined when none answers. A flag only a run in this
 * process can honour is refused once a service is known to be there.
 */
async function throughService(f: RunFlags, ref: string | undefined, fileDuck: Duck | undefined, { io, env, stdin }: Invocation): Promise<number | undefined> {
  const status = await askService(env, { op: 'status' });
  if (status === undefined) return undefined;
  const pid = status.type === 'status' ? ` (pid ${status.status.service.pid})` : '';
  const local = LOCAL_ONLY.find((k) => f[k] !== undefined);
  if (local !== undefined) throw new UsageError(`run: --${local} is for a run in this process, and quackd serve${pid} runs this one with its own settings`, 'add --local to run here instead');
  const starter = fileDuck === undefined || fileDuck.source.startsWith('starter:');
  const seed = numberFlag('seed', f.seed, { int: true, min: 0, max: 2 ** 32 - 1 });
  const run = await runThroughService(
    {
      robot: f.robot ?? fileDuck?.robot ?? DEFAULT_BODY,
      duck: starter ? (ref ?? 'goal') : fileDuck.source,
      ...(!starter ? { text: readFileSync(fileDuck.source, 'utf8') } : {}),
      ...(f.goal !== undefined ? { goal: f.goal } : {}),
      ...(seed !== undefined ? { seed } : {}),
      budgets: budgetFlags(f),
      dryRun: f['dry-run'] === true,
      yes: f.yes === true,
      json: f.json === true,
    },
    io,
    env,
    stdin,
  );
  if (run === undefined) return undefined;
  printReport(io, run.report, f.json === true);
  return run.report.outcome.status === 'interrupted' ? (run.signalCode ?? EXIT.interrupted) : exitCodeFor(run.report);
}

export function exitCodeFor(report: Pick<RunReport, 'outcome'>): number {
  switch (report.outcome.status) {
    case 'success':
      return EXIT.ok;
    case 'failure':
    case 'budget':
      return EXIT.failure;
    case 'interrupted':
      return EXIT.interrupted;
    case 'error':
      return EXIT.runtime;
  }
}

/**
 * The runtime of a run in this process. Memory is per body; a store that cannot be opened turns
 * memory off for a run, never the run. Its writes run on this thread: the process ends with the
 * run, and starting the writer worker cost a third of a second before the first step.
 */
export function localRuntime(config: ConfigFile, f: RunFlags, env: NodeJS.ProcessEnv): Runtime {
  return createRuntime({ ...(config.robots !== undefined ? { robots: config.robots } : {}), transcriptsDir: transcriptsDir(env), retention: retentionPolicy(config.transcripts), ...recordingConfig(config, env), dataDir: dataDir(env), ...(f['no-memory'] === true ? {} : { memoryDir: memoryDir(f['memory-dir'], env), memoryWrites: 'inline', ...runtimeEmbeddings(config, env) }) });
}

/** The pilot the flags, the environment and the config file name; a flag that would change nothing is refused. */
export async function pilotFor(f: RunFlags, env: NodeJS.ProcessEnv): Promise<Provider> {
  const provider = await createProvider(pilotFlags(f), env);
  // A person who typed it expected an effect.
  const pilotOnly = (['model', 'base-url', 'timeout', 'retries', 'key-file'] as const).find((k) => f[k] !== undefined);
  if ((provider.name === 'fake' || provider.name === 'script') && pilotOnly !== undefined) {
    throw new UsageError(`run: --${pilotOnly} is for a real pilot, but this run's pilot is the ${provider.name} one`, 'add --provider openai or --provider anthropic');
  }
  return provider;
}

export const runCommand: Command = {
  name: 'run',
  help,
  async run(argv: readonly string[], invocation: Invocation): Promise<number> {
    const { io, env, stdin } = invocation;
    const { flags: f, positionals } = parseFlags('run', argv, flags);
    if (positionals.length > 1) throw new UsageError(`run: one duck at a time (got ${positionals.length})`, "see 'quackd run --help'");
    if (positionals.length === 0 && f.goal === undefined) throw new UsageError('run: name a duck or give --goal "text"', "'quackd ducks' lists the starters");
    if (positionals.length === 1 && f.goal !== undefined) throw new UsageError('run: give a duck or --goal, not both');
    if (f.goal !== undefined && f.goal.trim() === '') throw new UsageError('run: --goal needs words: what should the robot do?');

    const fileDuck = positionals[0] !== undefined ? findDuck(positionals[0], userDucksDir(env)) : undefined;
    if (f['no-memory'] === true && f['memory-dir'] !== undefined) throw new UsageError('run: --memory-dir and --no-memory contradict each other');
    // A flock is coordinated here, whether or not a service runs: its members may be that service's robots, over MQTT.
    const flock = fileDuck?.flock;
    if (fileDuck !== undefined && flock !== undefined) return (await import('./run/flock.js')).runFlockDuck({ ...fileDuck, flock }, f, invocation);
    if (f.local !== true) {
      const code = await throughService(f, positionals[0], fileDuck, invocation);
      if (code !== undefined) return code;
    }
    const config = await loadConfigFile(env);
    const runtime = localRuntime(config.config, f, env);
    const flagSettings = { ...(f.port !== undefined ? { port: f.port } : {}), ...(f.baud !== undefined ? { baud: numberFlag('baud', f.baud, { int: true, min: 1 }) } : {}) };
    const robot = resolveRobot(runtime, f.robot, fileDuck, flagSettings);
    const base = fileDuck ?? goalDuck(f.goal ?? '', robot.entry, robotCan(robot.entry, robot.settings));
    const duck = withBudgets(base, f);
    checkDuckForBody(duck, robot.entry, robotCan(robot.entry, robot.settings));
    const seed = numberFlag('seed', f.seed, { int: true, min: 0, max: 2 ** 32 - 1 }) ?? 7;
    const provider = await pilotFor(f, env);
    // The script pilot plays the strategy as written: a line it cannot play is refused before anything moves.
    if (provider.name === 'script') readScript(duck);
    if (f.seed !== undefined && robot.entry.seeded !== true) throw new UsageError(`run: --seed picks a simulator's layout; ${robot.name} has none`);
    const dryRun = f['dry-run'] === true;
    const json = f.json === true;

    const stop = onStopSignals();
    const onMemory = ({ memory, notice }: { memory?: RunMemory; notice?: string }): void => {
      if (notice !== undefined && json) io.err.write(`quackd: ${notice}\n`);
      if (notice !== undefined && !json) io.line(io.dim(notice));
      if (!json && memory !== undefined) io.line(io.dim(memory.summaryLine));
      if (!json && f['no-memory'] === true) io.line(io.dim(`memory: off for this run (--no-memory)`));
      if (!json) printHeader(io, duck, robotLabel(robot.name, robot.key), pilotLabel(provider), dryRun);
      printWarnings(io, runWarnings(robot, dataDir(env)), json);
    };
    try {
      const report = await runtime.run({
        duck,
        robot,
        onMemory,
        seed,
        provider,
        // The question goes to stderr: stdout may be a pipe (--json) while a person is at the keyboard.
        gate: chooseGate({ yes: f.yes === true, stdin, stdout: io.err }),
        dryRun,
        signal: stop.signal,
        ...(f['no-record'] === true ? { noRecord: true } : {}),
        ...(json ? {} : { onEvent: stepPrinter(io) }),
      });
      printReport(io, report, json);
      return report.outcome.status === 'interrupted' ? (stop.exitCode() ?? EXIT.interrupted) : exitCodeFor(report);
    } finally {
      stop.dispose();
      await runtime.stop();
    }
  },
};
