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
import { shownLine, shownOf, splitKept, type Shown } from '../../memory/edit-shown.js';
import type { Entry } from '../../memory/entry.js';
import type { EditResult } from '../../memory/import.js';
import { parseJsonl, skippedWarning, toJsonl } from '../../memory/jsonl.js';
import { printable } from '../../cli/output.js';
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

/** One line naming what the edit left as others wrote it meanwhile, or undefined. */
function newerWarning(newer: EditResult['newer']): string | undefined {
  const changed = newer.filter((n) => n.was === 'changed').map((n) => `${n.id} (${n.line !== undefined ? `line ${n.line} not written` : 'not removed'})`);
  const forgotten = newer.filter((n) => n.was === 'forgotten').map((n) => `${n.id} (line ${n.line ?? '?'} not written)`);
  const parts = [
    ...(changed.length > 0 ? [`changed since you began, the newer kept: ${changed.join(', ')}`] : []),
    ...(forgotten.length > 0 ? [`forgotten since you began: ${forgotten.join(', ')}`] : []),
  ];
  return parts.length > 0 ? `memory edit: ${parts.join('; ')}` : undefined;
}

/** What the edit in `file` was shown: its kept line, else (a file without one) its entries as they are now, with nothing to remove. */
function keptEdit(file: string, body: string, current: readonly Entry[]): { text: string; shown: Shown; guessed: boolean } {
  const kept = splitKept(readEdit(file));
  if (kept.shown !== undefined) {
    if (kept.body !== body) throw new InputError(`memory edit: ${printable(file)} is an edit of ${printable(kept.body ?? '?')}, not ${body}`, `add --robot ${printable(kept.body ?? '?')}`);
    return { text: kept.text, shown: kept.shown, guessed: false };
  }
  const ids = new Set(parseJsonl(kept.text).lines.map((l) => l.id));
  return { text: kept.text, shown: shownOf(current.filter((e) => ids.has(e.id))), guessed: true };
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
      const before = toJsonl(snapshot);
      const from = flags.from;
      // With --from, what the edit was shown is what the kept file says, not the store now:
      // entries written since were never shown, so they are not the person's to remove.
      const edit = from !== undefined ? keptEdit(from, body, snapshot) : { text: editInEditor(tmp, body, before, env), shown: shownOf(snapshot), guessed: false };
      if (edit.text === before) return (io.line(`no changes to the memory of ${body}`), 0);
      const parse = parseJsonl(edit.text);
      const warning = skippedWarning('edited file', parse.skipped, parse.lines.length);
      if (warning !== undefined) {
        // A mangled line would read as "delete this entry": write nothing, and keep the person's
        // edit where they can find it rather than lose it with the temporary folder, with what it was shown.
        const kept = join(dir, `edit-${new Date().toISOString().replace(/[:.]/g, '-')}.jsonl`);
        writeFileSync(kept, edit.text.replace(/\n*$/, '\n') + (edit.guessed ? '' : shownLine(body, edit.shown)), { mode: 0o600 });
        throw new InputError(`memory edit: ${warning}; nothing written`, `your edit is kept in ${kept}: fix that line, then 'quackd memory edit --from ${kept}'`);
      }
      if (edit.guessed) io.err.write(`quackd: warning: memory edit: ${printable(from ?? '')} does not say what its edit was shown, so no entry is removed\n`);
      const result = await guarded(dir, () => memory.applyEdit(edit.shown, parse));
      const refused = result.skipped.filter((s) => !parse.skipped.includes(s));
      const refusedWarning = skippedWarning('edited file', refused);
      if (refusedWarning !== undefined) io.err.write(`quackd: warning: ${refusedWarning} (refused lines change nothing)\n`);
      const newer = newerWarning(result.newer);
      if (newer !== undefined) io.err.write(`quackd: warning: ${newer}\n`);
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

/** The person's edit of `before` in $VISUAL or $EDITOR, in a private temporary file. */
function editInEditor(tmp: string, body: string, before: string, env: NodeJS.ProcessEnv): string {
  const file = join(tmp, `${body.replace(':', '-')}.jsonl`);
  writeFileSync(file, before, { mode: 0o600 });
  const editor = env['VISUAL'] || env['EDITOR'] || 'vi';
  const r = spawnSync('sh', ['-c', `${editor} "$1"`, 'quackd-edit', file], { stdio: 'inherit' });
  if (r.error !== undefined || r.status !== 0) {
    throw new InputError(`memory edit: the editor (${editor}) ${r.error !== undefined ? `failed: ${r.error.message}` : `exited with status ${r.status ?? r.signal}`}; nothing written`);
  }
  return readFileSync(file, 'utf8');
}
