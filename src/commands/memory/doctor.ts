/** `quackd memory doctor`: counts per body, size, last writes and an integrity check; writes nothing. */
import { parseFlags } from '../../cli/args.js';
import { UsageError } from '../../cli/errors.js';
import { loadConfigFile } from '../../config/file.js';
import { memoryDir } from '../../config/paths.js';
import { diagnose } from '../../memory/doctor.js';
import { shareSummary } from '../../memory/share/state.js';
import type { Command } from '../command.js';
import type { Invocation } from '../../cli/invocation.js';
import { localTime } from './common.js';

const help = [
  'usage: quackd memory doctor [--json] [--memory-dir DIR]',
  '',
  'Check the memory store: files and modes, entries per body, last writes, legacy files waiting to',
  'be imported, and an integrity check that reads every entry (in a separate process, so a damaged',
  'store is reported rather than crashing). Exit 0 when healthy, 3 when something is wrong.',
  '',
  '  --json             the report as one JSON object',
  '  --memory-dir DIR   the memory directory (default $QUACKD_MEMORY_DIR or ~/.quackd/memory)',
  '',
  'example: quackd memory doctor',
].join('\n');

/** The model of the config file's `memory.embeddings`, if any (a bad config is `config check`'s to report). */
async function configuredModel(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  try {
    return (await loadConfigFile(env)).config.memory?.embeddings?.model;
  } catch {
    return undefined;
  }
}

const size = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(0)} KiB` : `${(n / 1024 / 1024).toFixed(1)} MiB`);

export const doctorCommand: Command = {
  name: 'memory doctor',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('memory doctor', argv, { 'memory-dir': { type: 'string' }, json: { type: 'boolean' } });
    if (positionals.length > 0) throw new UsageError(`memory doctor: unexpected argument "${positionals[0]}"`, 'doctor checks every body at once');
    const report = await diagnose(memoryDir(flags['memory-dir'], env));
    const code = report.problems.length > 0 ? 3 : 0;
    if (flags.json === true) return (io.line(JSON.stringify({ ...report, share: shareSummary(report.dir) ?? null })), code);
    if (!report.exists) {
      for (const problem of report.problems) io.line(`${io.red(io.fail)} ${problem}`);
      if (report.problems.length > 0) return code;
      io.line(`memory store: none yet in ${report.dir}`);
      for (const f of report.legacyPending) io.line(`legacy file waiting to be imported: ${f}`);
      return 0;
    }
    io.line(`memory store: ${report.dir} ${io.dim(`(dir ${report.dirMode ?? '?'})`)}`);
    for (const f of report.files) io.line(`  ${f.name.padEnd(16)} ${size(f.bytes).padStart(9)}  ${f.mode}`);
    const bodies = report.check?.bodies ?? [];
    if (bodies.length === 0 && report.check !== undefined) io.line('bodies: none has memory yet');
    if (bodies.length > 0) io.line('bodies:');
    const width = Math.max(0, ...bodies.map((b) => b.body.length));
    for (const b of bodies) {
      io.line(`  ${b.body.padEnd(width)}  ${String(b.notes).padStart(3)} note${b.notes === 1 ? ' ' : 's'}  ${String(b.episodes).padStart(3)} episode${b.episodes === 1 ? ' ' : 's'}  ${io.dim(`last write ${b.lastWrite !== undefined ? localTime(b.lastWrite) : '-'}`)}`);
    }
    // The configured model is listed even before it has embedded anything.
    const configured = await configuredModel(env);
    for (const b of bodies) {
      // Coverage of recall by meaning: entries with a vector of their current text, per model.
      const all = b.notes + b.episodes;
      const models = { ...(configured !== undefined && !Object.keys(b.vectors ?? {}).some((k) => k.startsWith(`${configured}/`)) ? { [configured]: 0 } : {}), ...b.vectors };
      for (const [model, n] of Object.entries(models)) io.line(`  ${b.body.padEnd(width)}  embedded by ${model}: ${n} of ${all}${n < all ? io.dim(' (the rest are embedded at the next write, run or search)') : ''}`);
    }
    for (const f of report.legacyPending) io.line(`legacy file waiting to be imported on the next open: ${f}`);
    // Fleet memory (memory.share): what the broker was told; the live state is the service's (`quackd health`).
    const shared = shareSummary(report.dir);
    for (const b of shared?.bodies ?? []) {
      io.line(`  ${b.body.padEnd(width)}  shared: ${b.entries} entr${b.entries === 1 ? 'y' : 'ies'} and ${b.forgets} forget${b.forgets === 1 ? '' : 's'} on the broker  ${io.dim(`last sync ${localTime(shared?.lastSync ?? '')}; quackd health shows the link`)}`);
    }
    if (report.problems.length === 0) {
      io.line(`${io.ok} integrity: ${report.check?.entries ?? 0} entries read and valid`);
    } else {
      for (const p of report.problems) io.line(`${io.fail} ${p}`);
    }
    return code;
  },
};
