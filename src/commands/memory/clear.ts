/** `quackd memory clear`: remove every entry of one body, after asking (or with --yes). */
import { parseFlags } from '../../cli/args.js';
import { UsageError } from '../../cli/errors.js';
import type { Command } from '../command.js';
import type { Invocation } from '../../cli/invocation.js';
import { COMMON_FLAGS, COMMON_HELP, guarded, askYesNo, isInteractive, openForRead, openForWrite, target } from './common.js';

const help = [
  'usage: quackd memory clear [--robot KEY] [--yes] [--memory-dir DIR]',
  '',
  "Remove every note and episode of one body. Asks first on a terminal; without one it refuses",
  'unless --yes is given. Other bodies are not touched. With memory.share on in the config, the',
  "body's shared memory is the fleet's: `quackd serve` sends a forget for each shared entry (notes;",
  'episodes too with share: episodes), and every robot of the fleet with this body clears them too.',
  '',
  '  --yes              clear without asking',
  COMMON_HELP,
  '',
  'example: quackd memory clear --robot microduck:sim2d',
].join('\n');

export const clearCommand: Command = {
  name: 'memory clear',
  help,
  async run(argv: readonly string[], { io, env, stdin }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('memory clear', argv, { ...COMMON_FLAGS, yes: { type: 'boolean', short: 'y' } });
    if (positionals.length > 0) throw new UsageError(`memory clear: unexpected argument "${positionals[0]}"`, 'the body is chosen with --robot');
    const { dir, body, unnamed, shared } = await target(flags, env);
    // A fleet-wide delete is said before it is asked for and after it is done, not only in --help.
    const fleetWide = shared !== undefined ? `; its ${shared} go on every robot of the fleet with this body too (memory.share)` : '';
    // Without asking, a wholesale delete is done only to a memory named (a script written for the simulator's default must not empty the duck's).
    if (flags.yes === true && unnamed !== undefined) throw new UsageError(`memory clear --yes: name the robot whose memory to clear (--robot ${unnamed})`, `left out, it is ${unnamed}'s (${body}): the fleet's one robot`);
    if (flags.yes !== true) {
      if (!isInteractive(stdin, io)) throw new UsageError(`memory clear: refusing to clear the memory of ${body} without a terminal to ask`, 'add --yes to clear without asking');
      const peek = await openForRead(dir, io);
      const count = peek === undefined ? 0 : await guarded(dir, () => peek.body(body).entries().length);
      await peek?.close();
      if (count === 0) return (io.line(`${body}: nothing to clear`), 0);
      if (!(await askYesNo(`clear ${count === 1 ? 'the 1 entry' : `all ${count} entries`} of ${body}${fleetWide}? [y/N] `, stdin, io))) return (io.line('nothing cleared'), 0);
    }
    const store = await openForWrite(dir, io);
    try {
      const n = await guarded(dir, () => store.body(body).clear());
      io.line(`cleared ${n} entr${n === 1 ? 'y' : 'ies'} of ${body}${fleetWide}`);
      return 0;
    } finally {
      await store.close();
    }
  },
};
