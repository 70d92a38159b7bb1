/** `quackd memory add`: a person adds a note, under the same rules as the pilot's `remember`. */
import { parseFlags } from '../../cli/args.js';
import { UsageError } from '../../cli/errors.js';
import { fitLine } from '../../cli/fit.js';
import { printable } from '../../cli/output.js';
import type { Command } from '../command.js';
import type { Invocation } from '../../cli/invocation.js';
import { COMMON_FLAGS, COMMON_HELP, guarded, openForWrite, target } from './common.js';

const help = [
  'usage: quackd memory add TEXT [--tag T]... [--topic T] [--robot KEY] [--memory-dir DIR]',
  '',
  'Add a note (at most 300 characters). The same text again refreshes the old note; a note with',
  'the topic of an older one replaces it (the old text stays in its history).',
  '',
  '  --tag T            a tag (repeatable)',
  '  --topic T          what the note is about, e.g. "ball location"',
  COMMON_HELP,
  '',
  'example: quackd memory add "the charger is under the desk" --tag place --topic charger',
].join('\n');

export const addCommand: Command = {
  name: 'memory add',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('memory add', argv, { ...COMMON_FLAGS, tag: { type: 'string', multiple: true }, topic: { type: 'string' } });
    const text = positionals.join(' ');
    if (text.trim() === '') throw new UsageError('memory add: the note text is missing', 'e.g. quackd memory add "the charger is under the desk"');
    const { dir, body } = await target(flags, env);
    const store = await openForWrite(dir, io);
    try {
      const plan = await guarded(dir, () =>
        store.body(body).remember({ text, source: 'human', tags: flags.tag ?? [], ...(flags.topic !== undefined ? { topic: flags.topic } : {}) }),
      );
      const id = plan.entry?.id ?? '?';
      const say = (text: string): void => io.line(fitLine(text, io.width(), 2));
      if (plan.action === 'added') say(`remembered ${id} for ${body}: ${printable(plan.entry?.text ?? '')}`);
      else if (plan.action === 'refreshed') say(`already known: refreshed ${id} for ${body}`);
      else say(`replaced ${id} for ${body} (was: ${printable(plan.replaced ?? '')})`);
      if (plan.evicted.length > 0) say(io.dim(`over the cap: removed ${plan.evicted.map((e) => e.id).join(', ')}`));
      return 0;
    } finally {
      await store.close();
    }
  },
};
