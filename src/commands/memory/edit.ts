/**
 * `quackd memory edit`: a body's memory as JSONL in $EDITOR, written back in one transaction.
 * The temporary file lives in a private directory and is removed afterwards: it is the robot's
 * memory in plain text.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { parseFlags } from '../../cli/args.js';
import { InputError, UsageError } from '../../cli/errors.js';
import { parseJsonl, skippedWarning, toJsonl } from '../../memory/jsonl.js';
import type { Command } from '../command.js';
import type { Invocation } from '../../cli/invocation.js';
import { COMMON_FLAGS, COMMON_HELP, guarded, openForWrite, target } from './common.js';

const help = [
  'usage: quackd memory edit [--from FILE] [--robot KEY] [--memory-dir DIR]',
  '',
  "Open a body's memory as JSONL in $VISUAL or $EDITOR (default vi), one entry per line. Change a",
  'line\'s text, tags or topic to update it, delete a line to forget it, add {"text": "…"} for a new',
  'note. On save it is written back in one transaction. If a line cannot be read, nothing is',
  'written and your edit is kept in a file; fix it there and apply it with --from FILE (no editor).',
  '',
  COMMON_HELP,
  '',
  'example: EDITOR=nano quackd memory edit',
].join('\n');

function readEdit(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new InputError(`memory edit: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

export const editCommand: Command = {
  name: 'memory edit',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('memory edit', argv, { ...COMMON_FLAGS, from: { type: 'string' } });
    if (positionals.length > 0) throw new UsageError(`memory edit: unexpected argument "${positionals[0]}"`, 'the body is chosen with --robot');
    const { dir, body } = await target(flags, env);
    const store = await openForWrite(dir, io);
    const tmp = mkdtempSync(join(tmpdir(), 'quackd-memory-'));
    try {
      const memory = store.body(body);
      const snapshot = await guarded(dir, () => memory.entries());
      const file = join(tmp, `${body.replace(':', '-')}.jsonl`);
      const before = toJsonl(snapshot);
      writeFileSync(file, before, { mode: 0o600 });
      const from = flags.from;
      if (from === undefined) {
        const editor = env['VISUAL'] || env['EDITOR'] || 'vi';
        const r = spawnSync('sh', ['-c', `${editor} "$1"`, 'quackd-edit', file], { stdio: 'inherit' });
        if (r.error !== undefined || r.status !== 0) {
          throw new InputError(`memory edit: the editor (${editor}) ${r.error !== undefined ? `failed: ${r.error.message}` : `exited with status ${r.status ?? r.signal}`}; nothing written`);
        }
      }
      const after = from === undefined ? readFileSync(file, 'utf8') : readEdit(from);
      if (after === before) return (io.line(`no changes to the memory of ${body}`), 0);
      const parse = parseJsonl(after);
      const warning = skippedWarning('edited file', parse.skipped, parse.lines.length);
      if (warning !== undefined) {
        // A mangled line would read as "delete this entry": write nothing, and keep the person's
        // edit where they can find it rather than lose it with the temporary folder.
        const kept = join(dir, `edit-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
        writeFileSync(kept, after, { mode: 0o600 });
        throw new InputError(`memory edit: ${warning}; nothing written`, `your edit is kept in ${kept}: fix that line, then 'quackd memory edit --from ${kept}'`);
      }
      const result = await guarded(dir, () => memory.applyEdit(snapshot, parse));
      const refused = result.skipped.filter((s) => !parse.skipped.includes(s));
      const refusedWarning = skippedWarning('edited file', refused);
      if (refusedWarning !== undefined) io.err.write(`quackd: warning: ${refusedWarning} (refused lines change nothing)\n`);
      io.line(`memory of ${body}: ${result.changed} changed, ${result.added} added, ${result.removed} removed`);
      // A kept edit that has now been applied has done its job.
      if (from !== undefined && dirname(resolve(from)) === resolve(dir) && basename(from).startsWith('edit-')) rmSync(from, { force: true });
      return 0;
    } finally {
      rmSync(tmp, { recursive: true, force: true });
      await store.close();
    }
  },
};
