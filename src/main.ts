#!/usr/bin/env node
/**
 * The `quackd` bin: find the verb in commands/index.ts, import only it, run it, map errors to
 * exit codes. Nothing else happens here.
 */
import { EXIT, QuackdError, exitCodeOf } from './cli/errors.js';
import { createOutput } from './cli/output.js';
import { commands } from './commands/index.js';
import { didYouMean } from './text/suggest.js';
import { VERSION } from './version.js';

function usage(): string {
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

async function main(argv: string[]): Promise<number> {
  const io = createOutput();
  const debug = argv.includes('--debug');
  // --debug wins over a QUACKD_LOG_LEVEL set for everyday use: the flag was typed just now.
  if (debug) process.env['QUACKD_LOG_LEVEL'] = 'debug';
  const args = argv.filter((a) => a !== '--debug');
  const [verb, ...rest] = args;
  // `quackd help run` is `quackd run --help`.
  // `quackd help rnu` gets the same "did you mean" as `quackd rnu`.
  if (verb === 'help' && rest[0] !== undefined && !rest[0].startsWith('-')) return main([rest[0], '--help']);
  if (verb === undefined || verb === '--help' || verb === '-h' || verb === 'help') {
    io.line(usage());
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
    return await command.run(rest, io);
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

// `quackd run … | head -1` closes the pipe early: that is no reason to leave a body moving or a
// transcript unfinished. Output to a closed pipe is dropped and the command ends as it would.
// A terminal that hung up (the SSH session dropped: SIGHUP) answers EIO: the same.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'EIO') throw err;
    stream.write = () => true;
  });
}

process.exitCode = await main(process.argv.slice(2));
