/** `quackd memory show`: a body's notes and earlier runs, newest first; `--raw` prints them as stored. */
import { parseFlags } from '../../cli/args.js';
import { UsageError } from '../../cli/errors.js';
import { fitLine } from '../../cli/fit.js';
import { toJsonl } from '../../memory/jsonl.js';
import { PROMPT_EPISODES, PROMPT_NOTES } from '../../memory/render.js';
import type { Command } from '../command.js';
import type { Invocation } from '../../cli/invocation.js';
import { COMMON_FLAGS, COMMON_HELP, ENTRY_TEXT_COLUMN, entryRow, guarded, openForRead, target } from './common.js';

const help = [
  'usage: quackd memory show [--robot KEY] [--json | --raw] [--memory-dir DIR]',
  '',
  "List a body's notes and earlier runs, newest first. Never changes the store.",
  '',
  '  --json             one JSON object: {body, dir, notes, episodes}, each newest first',
  '  --raw              one JSON object per line, as stored (oldest first)',
  COMMON_HELP,
  '',
  'example: quackd memory show --robot microduck:jsonrpc',
].join('\n');

export const showCommand: Command = {
  name: 'memory show',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('memory show', argv, { ...COMMON_FLAGS, raw: { type: 'boolean' }, json: { type: 'boolean' } });
    if (positionals.length > 0) throw new UsageError(`memory show: unexpected argument "${positionals[0]}"`, "see 'quackd memory show --help'");
    if (flags.raw === true && flags.json === true) throw new UsageError('memory show: --json and --raw are two formats; choose one');
    const { dir, body } = await target(flags, env);
    const store = await openForRead(dir, io);
    try {
      const entries = store === undefined ? [] : await guarded(dir, () => store.body(body).entries());
      if (flags.raw === true) {
        io.out.write(toJsonl(entries));
        return 0;
      }
      const notes = entries.filter((e) => e.kind === 'note');
      const episodes = entries.filter((e) => e.kind === 'episode');
      if (flags.json === true) {
        io.line(JSON.stringify({ body, dir, notes, episodes }));
        return 0;
      }
      if (entries.length === 0) {
        io.line(`${body}: no memory yet ${io.dim(`(${dir})`)}`);
        return 0;
      }
      io.line(fitLine(`${io.bold(body)}: ${notes.length} note${notes.length === 1 ? '' : 's'}, ${episodes.length} earlier run${episodes.length === 1 ? '' : 's'} ${io.dim(`(${dir})`)}`, io.width(), 2));
      if (notes.length > 0) io.line(io.dim('notes, newest first'));
      const row = (e: (typeof entries)[number]): void => io.line(fitLine(entryRow(e, io), io.width(), ENTRY_TEXT_COLUMN));
      for (const e of notes) row(e);
      if (episodes.length > 0) io.line(io.dim('earlier runs, newest first'));
      for (const e of episodes) row(e);
      if (notes.length > PROMPT_NOTES || episodes.length > PROMPT_EPISODES) {
        io.line(io.dim(fitLine(`a run shows the pilot the newest ${PROMPT_NOTES} notes and ${PROMPT_EPISODES} earlier runs`, io.width())));
      }
      return 0;
    } finally {
      await store?.close();
    }
  },
};
