/** `quackd memory forget ID`: remove one entry of a body. */
import { parseFlags } from '../../cli/args.js';
import { InputError, UsageError } from '../../cli/errors.js';
import { printable } from '../../cli/output.js';
import type { Command } from '../command.js';
import type { Invocation } from '../../cli/invocation.js';
import { COMMON_FLAGS, COMMON_HELP, guarded, openForWrite, target } from './common.js';

const help = [
  'usage: quackd memory forget ID [--robot KEY] [--memory-dir DIR]',
  '',
  "Remove one note or episode; ids are in 'quackd memory show'.",
  '',
  COMMON_HELP,
  '',
  'example: quackd memory forget n-3k9x2a',
].join('\n');

export const forgetCommand: Command = {
  name: 'memory forget',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('memory forget', argv, COMMON_FLAGS);
    const [id, extra] = positionals;
    if (id === undefined || extra !== undefined) throw new UsageError('memory forget: give exactly one id', "ids are in 'quackd memory show'");
    const { dir, body } = await target(flags, env);
    const store = await openForWrite(dir, io);
    try {
      const gone = await guarded(dir, () => store.body(body).forget(id));
      if (gone === undefined) throw new InputError(`memory forget: no entry "${id}" in the memory of ${body}`, "ids are in 'quackd memory show'");
      io.line(`forgot ${gone.id} (${gone.kind}) from ${body}: ${printable(gone.text)}`);
      return 0;
    } finally {
      await store.close();
    }
  },
};
