/**
 * `quackd do VERB [ARGS]`: one verb on a robot, as robotd's `robotctl do`. It is a run of a
 * one-line duck (`1. walk 1.0`) played by the script pilot, so it goes through everything a run
 * does: the body's verbs as the allowlist, the executor's checks, the motion gate on a real body
 * (as `--goal` has it: a person's yes, or --yes), a transcript, and the running service when there
 * is one. Memory is left alone: one verb a person asked for is not an episode to recall.
 */
import { numberFlag, parseFlags } from '../cli/args.js';
import { InputError, UsageError } from '../cli/errors.js';
import type { Invocation } from '../cli/invocation.js';
import { runThroughService } from '../cli/service-run.js';
import { DEFAULT_BODY, type BodyEntry } from '../bodies/index.js';
import { checkVerbForBody } from '../ducks/check.js';
import { readCall } from '../ducks/script.js';
import { oneVerbDuckText } from '../ducks/one-verb.js';
import { everyVerb } from '../verbs/registry.js';
import type { Command } from './command.js';
import { finish, linkSettings, playHere, refuseLinkFlags, serviceBody } from './one-verb.js';

const flags = {
  robot: { type: 'string' },
  seed: { type: 'string' },
  port: { type: 'string' },
  baud: { type: 'string' },
  seconds: { type: 'string' },
  'dry-run': { type: 'boolean' },
  yes: { type: 'boolean', short: 'y' },
  json: { type: 'boolean' },
  local: { type: 'boolean' },
} as const;

/** Long enough for a 3 m walk on the twin at its slowest; --seconds overrides it. */
const DO_SECONDS = 120;

const help = `usage: quackd do VERB [ARGS] [options]

Does one verb on a robot, with no pilot to ask: a run of one step, through the safety executor
(the body's verbs are the allowlist), transcripted as any run. Arguments fill the verb's inputs
in order (walk: metres; turn: degrees; kick: foot), or by name (key=value). On a real body a
verb that moves asks a person first (--yes to allow); simulators need no yes.

options:
  --robot NAME             a robot of the fleet or a body key (default ${DEFAULT_BODY})
  --seed N                 the simulator's layout (default 7)
  --port PATH, --baud N    the serial link of a real body (microduck:jsonrpc)
  --seconds S              the run's time budget (default ${DO_SECONDS})
  --dry-run                send nothing to the body; the result is invented and marked
  --yes, -y                allow a verb that moves without asking
  --json                   print the outcome as one JSON object (no step line)
  --local                  run in this process even when a 'quackd serve' is running

When a 'quackd serve' is running, the verb goes through it (as 'quackd run' does); --port and
--baud are then refused (the service holds its robots' links).

examples:
  quackd do quack
  quackd do walk 1.0
  quackd do turn degrees=-90 --robot microduck:mujoco
  quackd do kick left --robot microduck:jsonrpc --port /dev/serial/by-id/usb-…-if00 --yes
  quackd do walk -- -0.5          (a negative number after --)`;

/** The one-line duck `line` is, as a .duck's text: the body's gate on the verb when it moves a real body. */
function doDuckText(verb: string, line: string, body: BodyEntry | undefined, seconds: number): string {
  return oneVerbDuckText('the command line (quackd do)', verb, line, body, seconds);
}

/** The verb and its arguments as one script line; checked against the body and the verb's schema by checkLine(). */
function scriptLine(positionals: readonly string[]): { verb: string; line: string } {
  const [verb, ...args] = positionals;
  if (verb === undefined) throw new UsageError('do: name a verb, e.g. quackd do walk 1.0', "'quackd bodies' lists each body's verbs");
  // One line of a script: a newline in an argument would make it two.
  if (positionals.some((p) => /\p{Cc}/u.test(p))) throw new UsageError('do: an argument holds a control character (a newline?)');
  return { verb, line: [verb, ...args].join(' ') };
}

/**
 * The verb is one of the body's (when the body is known here), and its arguments fit the verb.
 * Whether this robot performs it (search_scan wants a camera: setting) is the run's check, made
 * where the robot's settings are (the service's, or here in one-verb.ts).
 */
function checkLine(verb: string, line: string, body: BodyEntry | undefined): void {
  // A sense verb (snapshot) is quackd's, on any body with a camera: the run says when there is none.
  const sense = everyVerb.get(verb)?.kind === 'sense';
  if (body !== undefined && !sense) checkVerbForBody('do:', verb, body, true, { verbs: body.verbs, metrics: body.metrics });
  const call = readCall(line, body !== undefined && !sense ? body.verbs : everyVerb.names());
  if ('error' in call) throw new InputError(`do: "${line}": ${call.error}`, 'e.g. quackd do walk 1.0, quackd do turn degrees=90');
}

export const doCommand: Command = {
  name: 'do',
  help,
  async run(argv: readonly string[], invocation: Invocation): Promise<number> {
    const { io, env, stdin } = invocation;
    // parseArgs reads `-0.5` as an option: say how a negative number is written instead.
    const dash = argv.indexOf('--');
    const negative = argv.find((a, i) => /^-(\d|\.\d)/.test(a) && (dash < 0 || i < dash));
    if (negative !== undefined) throw new UsageError(`do: "${negative}" reads as an option; a negative number goes after --`, 'e.g. quackd do walk -- -0.5, or quackd do walk metres=-0.5');
    const { flags: f, positionals } = parseFlags('do', argv, flags);
    const { verb, line } = scriptLine(positionals);
    const seconds = numberFlag('seconds', f.seconds, { min: 1, max: 86_400 }) ?? DO_SECONDS;
    const seed = numberFlag('seed', f.seed, { int: true, min: 0, max: 2 ** 32 - 1 });
    const name = f.robot ?? DEFAULT_BODY;
    const dryRun = f['dry-run'] === true;
    const json = f.json === true;

    const service = f.local === true ? undefined : await serviceBody(name, env);
    if (service !== undefined) {
      refuseLinkFlags('do', f, service.pid);
      checkLine(verb, line, service.body);
      const text = doDuckText(verb, line, service.body, seconds);
      const run = await runThroughService({ robot: name, duck: 'do', text, ...(seed !== undefined ? { seed } : {}), budgets: {}, dryRun, yes: f.yes === true, json, script: true }, io, env, stdin);
      if (run !== undefined) return finish(io, run.report, json, run.signalCode);
    }

    const duckText = (body: BodyEntry): string => {
      checkLine(verb, line, body);
      return doDuckText(verb, line, body, seconds);
    };
    return playHere({ command: 'do', robot: name, duckText, ...(seed !== undefined ? { seed } : {}), settings: linkSettings(f), dryRun, yes: f.yes === true, json }, invocation);
  },
};

