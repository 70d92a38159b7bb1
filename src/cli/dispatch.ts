/**
 * The CLI's dispatcher: find the verb in a table of verbs (commands/index.ts), import only it, run
 * it, map errors to exit codes. It touches nothing of the process: a bin (cli/bin.ts) hands it
 * argv, the process's streams and environment; a test hands it captured ones and runs a command
 * in-process (cli/quackd.ts).
 */
import type { CommandTable } from '../commands/index.js';
import { lazyLogRoot, setProcessLogRoot, withLogs } from '../log.js';
import { didYouMean } from '../text/suggest.js';
import { VERSION } from '../version.js';
import { EXIT, QuackdError, exitCodeOf } from './errors.js';
import type { Invocation } from './invocation.js';

function usage(commands: CommandTable): string {
  const width = Math.max(...Object.keys(commands).map((c) => c.length));
  const rows = Object.entries(commands).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return [
    'quackd: an edge runtime for small open-source robots',
    '',
    'usage: quackd <command> [options]',
    '',
    'commands:',
    ...rows,
    '',
    'options: --help (on every command), --version, --debug (stack traces and debug logs)',
    'example: quackd run find-and-kick',
    '',
    'exit codes: 0 success · 1 the run failed or ran out of budget · 2 usage or input error ·',
    '            3 runtime or hardware error · 129 hung up (SIGHUP, e.g. SSH dropped) ·',
    '            130 interrupted (Ctrl-C) · 143 stopped (SIGTERM)',
  ].join('\n');
}

/** Runs `quackd ARGV` over the verbs of `commands` and returns its exit code. */
export async function dispatch(commands: CommandTable, argv: readonly string[], invocation: Invocation): Promise<number> {
  const debug = argv.includes('--debug');
  // --debug wins over a QUACKD_LOG_LEVEL set for everyday use: the flag was typed just now.
  const env = debug ? { ...invocation.env, QUACKD_LOG_LEVEL: 'debug' } : invocation.env;
  // Not spread: that would read stdin, which a bin hands over as a getter (cli/bin.ts).
  const inv: Invocation = {
    io: invocation.io,
    env,
    get stdin() {
      return invocation.stdin;
    },
  };
  const root = lazyLogRoot(env, inv.io.err);
  const verb = () => dispatchVerb(commands, argv.filter((a) => a !== '--debug'), inv, debug);
  // The bin's invocation is the process's: its root is the process's. A scope (withLogs) is for
  // invocations sharing a process (tests): its AsyncLocalStorage's promise hooks tax every
  // promise made after, module loading's included (a tenth of a CLI run's start measured here).
  if (invocation.ownsProcess === true) {
    setProcessLogRoot(root);
    return verb();
  }
  return withLogs(root, verb);
}

async function dispatchVerb(commands: CommandTable, args: readonly string[], invocation: Invocation, debug: boolean): Promise<number> {
  const { io } = invocation;
  const [verb, ...rest] = args;
  // `quackd help run` is `quackd run --help`.
  // `quackd help rnu` gets the same "did you mean" as `quackd rnu`.
  if (verb === 'help' && rest[0] !== undefined && !rest[0].startsWith('-')) return dispatchVerb(commands, [rest[0], '--help'], invocation, debug);
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    io.line(usage(commands));
    return verb === undefined ? EXIT.usage : EXIT.ok;
  }
  if (verb === '--version' || verb === '-v') {
    io.line(VERSION);
    return EXIT.ok;
  }
  const entry = commands[verb];
  if (entry === undefined) {
    const hint = didYouMean(verb, Object.keys(commands));
    io.err.write(`quackd: unknown command "${verb}"${hint === '' ? " (see 'quackd --help')" : hint}\n`);
    return EXIT.usage;
  }
  try {
    const command = await entry.load();
    // Every command's --help is handled here, before its flags are parsed; a command with
    // sub-commands answers `quackd memory add --help` itself.
    const helpAsked = command.subcommands === true ? rest[0] === '--help' || rest[0] === '-h' : rest.includes('--help') || rest.includes('-h');
    if (helpAsked) {
      io.line(command.help);
      return EXIT.ok;
    }
    return await command.run(rest, invocation);
  } catch (err) {
    if (err instanceof QuackdError) {
      io.err.write(`quackd: ${err.message}${err.hint !== undefined ? ` (${err.hint})` : ''}\n`);
      if (debug) io.err.write(`${err.stack ?? ''}\n`);
      return exitCodeOf(err);
    }
    io.err.write(`quackd: internal error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT.runtime;
  }
}
