/** `quackd memory export`: a body's memory as JSONL on stdout, oldest first, ready for `import`. */
import { parseFlags } from '../../cli/args.js';
import { UsageError } from '../../cli/errors.js';
import { toJsonl } from '../../memory/jsonl.js';
import type { Command } from '../command.js';
import type { Invocation } from '../../cli/invocation.js';
import { COMMON_FLAGS, COMMON_HELP, guarded, openForRead, target } from './common.js';

const help = [
  'usage: quackd memory export [--robot KEY] [--memory-dir DIR] > memory.jsonl',
  '',
  "Print a body's notes and episodes as JSONL, one entry per line, oldest first.",
  '',
  COMMON_HELP,
  '',
  'example: quackd memory export > m.jsonl ; quackd memory import m.jsonl --robot microduck:mujoco',
].join('\n');

export const exportCommand: Command = {
  name: 'memory export',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('memory export', argv, COMMON_FLAGS);
    if (positionals.length > 0) throw new UsageError(`memory export: unexpected argument "${positionals[0]}"`, 'export writes to stdout: quackd memory export > m.jsonl');
    const { dir, body } = await target(flags, env);
    const store = await openForRead(dir, io);
    try {
      io.out.write(toJsonl(store === undefined ? [] : await guarded(dir, () => store.body(body).entries())));
      return 0;
    } finally {
      await store?.close();
    }
  },
};
