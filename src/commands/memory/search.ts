/** `quackd memory search QUERY`: the entries that answer a question, best first, or nothing. */
import { numberFlag, parseFlags } from '../../cli/args.js';
import { UsageError } from '../../cli/errors.js';
import { printable } from '../../cli/output.js';
import { loadConfigFile } from '../../config/file.js';
import { dataDir } from '../../config/paths.js';
import { resolveEmbeddings } from '../../memory/embedding-settings.js';
import type { Command } from '../command.js';
import type { Invocation } from '../../cli/invocation.js';
import { COMMON_FLAGS, COMMON_HELP, entryRow, guarded, openForRead, target } from './common.js';

const help = [
  'usage: quackd memory search QUERY [--limit N] [--json] [--embeddings-url URL [--embeddings-model M]] [--robot KEY] [--memory-dir DIR]',
  '',
  "Rank a body's notes and episodes against a question (BM25 over stemmed words; any word may match).",
  'When nothing is relevant enough it says so rather than show the nearest unrelated entry.',
  'Identical entries (the same run again) are shown once, with a count (×3).',
  '',
  '  --limit N          at most N results (default 5)',
  '  --json             one JSON array of {id, kind, score, count, ids, text, time, …}',
  '  --embeddings-url URL   also rank by meaning, with an OpenAI-compatible /v1/embeddings server',
  '                     (default: memory.embeddings in the config file); entries not yet embedded are',
  '                     embedded first, and their vectors kept. When the server fails: words alone.',
  '  --embeddings-model M   its model (default: memory.embeddings.model)',
  COMMON_HELP,
  '',
  'example: quackd memory search "where is the charger"',
].join('\n');

export const searchCommand: Command = {
  name: 'memory search',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('memory search', argv, { ...COMMON_FLAGS, limit: { type: 'string' }, json: { type: 'boolean' }, 'embeddings-url': { type: 'string' }, 'embeddings-model': { type: 'string' } });
    const query = positionals.join(' ').trim();
    if (query === '') throw new UsageError('memory search: the query is missing', 'e.g. quackd memory search "where is the ball"');
    const limit = numberFlag('limit', flags.limit, { int: true, min: 1 }) ?? 5;
    const { dir, body } = await target(flags, env);
    const file = await loadConfigFile(env);
    const embeddings = resolveEmbeddings(file.config.memory, file.path, { url: flags['embeddings-url'], model: flags['embeddings-model'] }, dataDir(env));
    const store = await openForRead(dir, io, embeddings);
    try {
      const memory = store?.body(body);
      // Everything not yet embedded first, so the ranking covers all of it; a failure leaves words alone.
      if (memory !== undefined && embeddings !== undefined) await memory.embedPending().catch(() => 0);
      const found = memory === undefined ? { hits: [] } : await guarded(dir, () => memory.search(query, { limit }));
      const hits = found.hits;
      const meaning = 'meaning' in found ? found.meaning : undefined;
      if (meaning?.problem !== undefined) io.err.write(`quackd: ${meaning.problem}; searched by words alone\n`);
      if (flags.json === true) {
        io.line(JSON.stringify(hits.map((h) => ({ ...h.entry, score: Number(h.score.toFixed(3)), count: h.count, ids: h.ids, ...('similarity' in h && h.similarity !== undefined ? { similarity: Number(h.similarity.toFixed(3)) } : {}) }))));
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
