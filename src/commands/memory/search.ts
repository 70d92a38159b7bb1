/** `quackd memory search QUERY`: the entries that answer a question, best first, or nothing. */
import { numberFlag, parseFlags } from '../../cli/args.js';
import { UsageError } from '../../cli/errors.js';
import { printable } from '../../cli/output.js';
import { recall } from '../../memory/recall.js';
import type { Command } from '../command.js';
import type { Invocation } from '../../cli/invocation.js';
import { COMMON_FLAGS, COMMON_HELP, entryRow, guarded, openForRead, target } from './common.js';

const help = [
  'usage: quackd memory search QUERY [--limit N] [--json] [--robot KEY] [--memory-dir DIR]',
  '',
  "Rank a body's notes and episodes against a question (BM25 over stemmed words; any word may match).",
  'When nothing is relevant enough it says so rather than show the nearest unrelated entry.',
  'Identical entries (the same run again) are shown once, with a count (×3).',
  '',
  '  --limit N          at most N results (default 5)',
  '  --json             one JSON array of {id, kind, score, count, ids, text, time, …}',
  COMMON_HELP,
  '',
  'example: quackd memory search "where is the charger"',
].join('\n');

export const searchCommand: Command = {
  name: 'memory search',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('memory search', argv, { ...COMMON_FLAGS, limit: { type: 'string' }, json: { type: 'boolean' } });
    const query = positionals.join(' ').trim();
    if (query === '') throw new UsageError('memory search: the query is missing', 'e.g. quackd memory search "where is the ball"');
    const limit = numberFlag('limit', flags.limit, { int: true, min: 1 }) ?? 5;
    const { dir, body } = await target(flags, env);
    const store = await openForRead(dir, io);
    try {
      const hits = store === undefined ? [] : await guarded(dir, () => recall(store.body(body), query, { limit }));
      if (flags.json === true) {
        io.line(JSON.stringify(hits.map((h) => ({ ...h.entry, score: Number(h.score.toFixed(3)), count: h.count, ids: h.ids }))));
        return 0;
      }
      if (hits.length === 0) {
        io.line(`nothing in the memory of ${body} answers "${printable(query)}"`);
        return 0;
      }
      // Identical entries (the same routine run again) are one row, with how many said it.
      for (const h of hits) io.line(`${entryRow(h.entry, io)}  ${io.dim(`${h.count > 1 ? `×${h.count} · ` : ''}score ${h.score.toFixed(2)}`)}`);
      return 0;
    } finally {
      await store?.close();
    }
  },
};
