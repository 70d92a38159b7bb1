/** `quackd transcript list | show [ID|last]`: a run's record, for people and scripts. */
import { numberFlag, parseFlags } from '../cli/args.js';
import { EXIT, UsageError } from '../cli/errors.js';
import { fitTable } from '../cli/fit.js';
import { megabytes, printable } from '../cli/output.js';
import { recordingsDir, transcriptsDir } from '../config/paths.js';
import { existsSync } from 'node:fs';
import { showTranscript } from '../cli/transcript-show.js';
import { listTranscriptIds, resolveTranscriptId, summarize } from '../transcript/reader.js';
import { didYouMean } from '../text/suggest.js';
import type { Command } from './command.js';
import type { Invocation } from '../cli/invocation.js';
import { join } from 'node:path';
import { loadConfigFile } from '../config/file.js';
import { pruneTranscripts, retentionPolicy } from '../transcript/retention.js';
import { localTime } from './memory/common.js';
import { onStopSignals } from '../cli/signals.js';
import { followFile, followThroughService } from '../cli/transcript-follow.js';

const help = `usage: quackd transcript list [--json] [--limit N | --all]
       quackd transcript show [ID|last] [--frames] [--json | --mcap]
       quackd transcript follow [ROBOT|ID] [--json]
       quackd transcript prune [--dry-run] [--keep-runs N] [--keep-days D] [--json]

Transcripts live in ~/.quackd/transcripts (QUACKD_HOME moves them), one JSONL file per run.
'list' shows the newest 20 runs (--limit N for more or fewer, --all for every one) and says how
many there are when it shows fewer. 'show' takes a run id, a unique prefix of one, or 'last'
(the default); with --mcap it prints the path of the run's recording instead (the MCAP file
to open in Foxglove; exit 1 when the run has none). 'follow' shows a run as it happens, as 'quackd run' shows it: through the running
quackd serve its run on ROBOT (or with that run id; any run when none is named), waiting for the
next one when none is under way, with the gates it waits on and how to answer them; else the
transcript ID (default: last) read as it grows; until the run ends (or its process is gone
without an end line: 'unfinished') or Ctrl-C. 'prune' deletes
the runs the retention policy lets go: it keeps each robot's newest N runs, every run of the
last D days (transcripts.keep_runs and keep_days in the config; 200 and 30 by default) and a run
that may still be going (no end line, and its process alive or its file changed in two days);
--dry-run lists what would go and deletes nothing.

examples:
  quackd transcript list
  quackd transcript show last --frames
  quackd transcript follow kitchen-duck
  quackd transcript prune --dry-run`;

const flags = {
  json: { type: 'boolean' },
  frames: { type: 'boolean' },
  mcap: { type: 'boolean' },
  limit: { type: 'string' },
  all: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'keep-runs': { type: 'string' },
  'keep-days': { type: 'string' },
} as const;
const DEFAULT_LIMIT = 20;

/** `--mcap`: where the run's recording is, or why there is none. */
function showRecording(io: Invocation['io'], env: NodeJS.ProcessEnv, id: string, json: boolean): number {
  const path = join(recordingsDir(env), `${id}.mcap`);
  const there = existsSync(path);
  if (json) io.line(JSON.stringify({ id, recording: there ? path : null }));
  else if (there) io.line(path);
  else io.err.write(`quackd: ${id} has no recording (run with --no-record, recordings.record off, or pruned)\n`);
  return there ? EXIT.ok : EXIT.failure;
}

export const transcriptCommand: Command = {
  name: 'transcript',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags: f, positionals } = parseFlags('transcript', argv, flags);
    const [sub = 'list', ref = 'last', ...extra] = positionals;
    const dir = transcriptsDir(env);
    // Every id starts with the empty string: '' (an unset shell variable) is a mistake, not a prefix.
    if ((sub === 'show' || sub === 'follow') && positionals[1] === '') throw new UsageError(`transcript ${sub}: empty run id`, `give a run id, a unique prefix of one, or 'last'${sub === 'follow' ? ', or a robot' : ''}`);
    if (sub === 'list') {
      if (f.all === true && f.limit !== undefined) throw new UsageError('transcript list: --all and --limit contradict each other');
      const limit = f.all === true ? Infinity : (numberFlag('limit', f.limit, { int: true, min: 1 }) ?? DEFAULT_LIMIT);
      const ids = listTranscriptIds(dir);
      const rows = ids.slice(0, limit).map((id) => summarize(dir, id));
      if (f.json === true) io.line(JSON.stringify(rows));
      else if (rows.length === 0) io.line(io.dim('no transcripts yet'));
      else {
        // The id is what 'show' takes: never cut. The robot may be; the reason wraps, or goes under its run.
        const cells = rows.map((r) => [r.id, `${r.outcome ?? 'unfinished'}${r.dryRun === true ? ' (dry)' : ''}`, printable(r.robot ?? r.body ?? ''), printable(r.reason ?? '')]);
        for (const line of fitTable(cells, [{}, {}, { min: 8 }, { min: 30, paint: io.dim }], io.width())) io.line(line);
        // Said after the table only: --json stays a plain array for scripts.
        if (rows.length < ids.length) io.line(io.dim(`showing ${rows.length} of ${ids.length}; --all or --limit N`));
      }
      return Promise.resolve(EXIT.ok);
    }
    if (sub === 'show') {
      if (extra.length > 0) throw new UsageError('transcript show: one run at a time');
      const id = resolveTranscriptId(dir, ref);
      if (f.mcap === true) return showRecording(io, env, id, f.json === true);
      return showTranscript(io, dir, id, { json: f.json === true, frames: f.frames === true });
    }
    if (sub === 'follow') {
      if (extra.length > 0) throw new UsageError('transcript follow: one robot or run at a time');
      const target = positionals[1];
      const stop = onStopSignals();
      try {
        const served = await followThroughService(io, env, target, f.json === true, stop.signal);
        if (!served) await followFile(io, dir, target ?? 'last', f.json === true, stop.signal);
        return stop.exitCode() ?? EXIT.ok;
      } finally {
        stop.dispose();
      }
    }
    if (sub === 'prune') {
      if (positionals.length > 1) throw new UsageError('transcript prune: takes no run id; --keep-runs and --keep-days say what stays');
      const config = await loadConfigFile(env);
      const fromConfig = retentionPolicy(config.config.transcripts);
      const policy = {
        keepRuns: numberFlag('keep-runs', f['keep-runs'], { int: true, min: 1 }) ?? fromConfig.keepRuns,
        keepDays: numberFlag('keep-days', f['keep-days'], { min: 0 }) ?? fromConfig.keepDays,
      };
      const dry = f['dry-run'] === true;
      const gone = pruneTranscripts(dir, policy, { apply: !dry });
      if (f.json === true) {
        io.line(JSON.stringify({ dryRun: dry, keepRuns: policy.keepRuns, keepDays: policy.keepDays, pruned: gone }));
        return EXIT.ok;
      }
      const rule = `the newest ${policy.keepRuns} per robot and the last ${policy.keepDays} day${policy.keepDays === 1 ? '' : 's'}`;
      if (gone.length === 0) {
        io.line(`nothing to prune: every run is among ${rule}`);
        return EXIT.ok;
      }
      for (const run of gone) io.line(`  ${run.id}  ${io.dim(`${printable(run.robot)} · started ${localTime(run.started)} · ${megabytes(run.bytes)}`)}`);
      const total = megabytes(gone.reduce((n, r) => n + r.bytes, 0));
      io.line(dry ? `would delete ${gone.length} run${gone.length === 1 ? '' : 's'} (${total}); keeping ${rule} (--dry-run: nothing deleted)` : `deleted ${gone.length} run${gone.length === 1 ? '' : 's'} (${total}); kept ${rule}`);
      return EXIT.ok;
    }
    const hint = didYouMean(sub, ['list', 'show', 'follow', 'prune']);
    throw new UsageError(`transcript: unknown sub-command "${printable(sub)}"${hint}`, hint === '' ? "use 'list', 'show', 'follow' or 'prune'" : undefined);
  },
};
