/** `quackd memory import FILE`: add a JSONL file's entries, each body in one transaction. */
import { createReadStream } from 'node:fs';
import { parseFlags } from '../../cli/args.js';
import { InputError, UsageError } from '../../cli/errors.js';
import { fitLine } from '../../cli/fit.js';
import { printable } from '../../cli/output.js';
import { readJsonl, skippedWarning, type JsonlLine, type JsonlParse, type Skipped } from '../../memory/jsonl.js';
import { isBodyKey } from '../../memory/entry.js';
import type { BodyKey } from '../../bodies/body.js';
import type { ImportResult } from '../../memory/import.js';
import { didYouMean } from '../../text/suggest.js';
import type { Command } from '../command.js';
import type { Invocation } from '../../cli/invocation.js';
import { COMMON_FLAGS, COMMON_HELP, guarded, openForWrite, target } from './common.js';

const help = [
  'usage: quackd memory import FILE [--robot KEY] [--memory-dir DIR]',
  '',
  "Add the entries of a JSONL file (one object with a \"text\" per line, e.g. from 'memory export') to",
  'one body (with --robot), or each line to the body it names (without). Every note passes the usual rules (300 characters, no secrets, dedupe, topics, cap).',
  'Bad lines are skipped with a warning that names them; the valid lines are kept.',
  '',
  COMMON_HELP,
  '',
  'example: quackd memory import m.jsonl --robot microduck:sim2d',
].join('\n');

/** Lines that are in the body after the import: written, or already there. */
const kept = (r: ImportResult): number => r.added + r.refreshed + r.superseded + r.unchanged;

/** The file (or stdin for `-`), streamed line by line. */
async function read(file: string, stdin: Invocation['stdin']): Promise<JsonlParse> {
  const input = file === '-' ? stdin : createReadStream(file, { encoding: 'utf8' });
  try {
    return await readJsonl(input);
  } catch (err) {
    throw new InputError(`memory import: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

export const importCommand: Command = {
  name: 'memory import',
  help,
  async run(argv: readonly string[], { io, env, stdin }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('memory import', argv, COMMON_FLAGS);
    const [file, extra] = positionals;
    if (file === undefined || extra !== undefined) throw new UsageError('memory import: give exactly one FILE', 'e.g. quackd memory import m.jsonl');
    const { dir, body, known } = await target(flags, env);
    const parse = await read(file, stdin);
    // With --robot every line goes to that body (copying one robot's memory to another); without
    // it, each exported line goes back to the body it names, so export → import is a round trip.
    const groups = new Map<BodyKey, JsonlLine[]>();
    const misplaced: Skipped[] = [];
    for (const l of parse.lines) {
      const to = flags.robot !== undefined || l.body === undefined ? body : l.body;
      if (!isBodyKey(to)) {
        misplaced.push({ line: l.line, reason: `body "${to}" is not an adapter:backend key` });
        continue;
      }
      if (!known.includes(to)) {
        // Named, not imported: a memory for a body no run here can use is a mistake to see.
        misplaced.push({ line: l.line, reason: `body "${to}" is no body of this quackd${didYouMean(to, known)}` });
        continue;
      }
      // One array per body, appended to: copying it per line made a 100k-line import quadratic.
      const group = groups.get(to);
      if (group === undefined) groups.set(to, [l]);
      else group.push(l);
    }
    // Nothing to add: a wrong file (or an empty one) is an error, not "0 added".
    if (groups.size === 0) {
      const skipped = [...parse.skipped, ...misplaced].sort((a, b) => a.line - b.line);
      const hint = parse.lines.length > 0 ? 'with --robot KEY every line goes to that body' : 'a line is one JSON object with a "text", as memory export writes';
      throw new InputError(skipped.length === 0 ? `memory import: ${printable(file)} has no entries` : `memory import: nothing to import from ${skippedWarning(file, skipped) ?? printable(file)}`, hint);
    }
    const store = await openForWrite(dir, io);
    const results: [BodyKey, ImportResult][] = [];
    try {
      let first = true;
      for (const [to, lines] of groups) {
        results.push([to, await guarded(dir, () => store.body(to).importLines({ lines, skipped: first ? [...parse.skipped, ...misplaced] : [] }))]);
        first = false;
      }
    } finally {
      await store.close();
    }
    // Every line refused by the rules: as much "nothing to import" as a file of another body's lines.
    if (results.every(([, r]) => kept(r) === 0)) {
      const skipped = results.flatMap(([, r]) => r.skipped).sort((a, b) => a.line - b.line);
      throw new InputError(`memory import: nothing to import from ${skippedWarning(file, skipped) ?? printable(file)}`);
    }
    for (const [to, r] of results) {
      const warning = skippedWarning(file, r.skipped, kept(r));
      if (warning !== undefined) io.err.write(`quackd: warning: ${warning}\n`);
      io.line(fitLine(`imported ${printable(file)} into ${to}: ${r.added} added, ${r.refreshed} refreshed, ${r.superseded} replaced, ${r.unchanged} already there${r.evicted > 0 ? `, ${r.evicted} removed over the cap` : ''}`, io.width(), 2));
    }
    return 0;
  },
};
