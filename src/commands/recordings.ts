/** `quackd recordings list | prune`: each run's MCAP recording, what it takes on disk, and the cap. */
import { numberFlag, parseFlags } from '../cli/args.js';
import { EXIT, RuntimeError, UsageError } from '../cli/errors.js';
import { fitTable } from '../cli/fit.js';
import { megabytes, printable } from '../cli/output.js';
import type { Invocation } from '../cli/invocation.js';
import { loadConfigFile } from '../config/file.js';
import { recordingsDir, transcriptsDir } from '../config/paths.js';
import { keptLine, listRecordings, pruneRecordings, recordingPolicy } from '../recording/retention.js';
import { didYouMean } from '../text/suggest.js';
import type { Command } from './command.js';

const help = `usage: quackd recordings list [--json]
       quackd recordings prune [--dry-run] [--max-mb N] [--json]

Every run is recorded as an MCAP file in ~/.quackd/recordings (QUACKD_HOME moves it), named by
its run id: the transcript's lines as foxglove.Log, the joints (target, applied, measured), the
IMU and each control tick's timing, the trunk's pose and the room. Open one in Foxglove (File →
Open local file). 'list' shows them, newest first, with their size. 'prune' deletes what the
cap lets go: each robot keeps its newest recordings up to recordings.max_mb in the config
(2000 MB by default, --max-mb here), and a recording whose transcript was pruned goes with it.
Only files named by a run id are recordings: anything else in the folder is left alone.
'quackd run --no-record' skips one run; recordings.record: false in the config skips all.

examples:
  quackd recordings list
  quackd transcript show last --mcap
  quackd recordings prune --dry-run --max-mb 500`;

const flags = {
  json: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'max-mb': { type: 'string' },
} as const;

export const recordingsCommand: Command = {
  name: 'recordings',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags: f, positionals } = parseFlags('recordings', argv, flags);
    const [sub = 'list', ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`recordings ${sub}: takes no run id`);
    const dir = recordingsDir(env);
    if (sub === 'list') {
      const all = listRecordings(dir, transcriptsDir(env));
      if (f.json === true) io.line(JSON.stringify(all));
      else if (all.length === 0) io.line(io.dim(`no recordings yet in ${dir}`));
      else {
        const cells = all.map((r) => [printable(r.id), megabytes(r.bytes), printable(r.robot ?? '(transcript gone)'), r.outcome ?? '']);
        for (const line of fitTable(cells, [{}, {}, { min: 8 }, { paint: io.dim }], io.width())) io.line(line);
        io.line(io.dim(`${all.length} recording${all.length === 1 ? '' : 's'}, ${megabytes(all.reduce((n, r) => n + r.bytes, 0))} in ${dir}`));
      }
      return EXIT.ok;
    }
    if (sub === 'prune') {
      const config = await loadConfigFile(env);
      const fromConfig = recordingPolicy(config.config.recordings);
      const maxMb = numberFlag('max-mb', f['max-mb'], { min: 0.01 });
      const policy = { ...fromConfig, ...(maxMb !== undefined ? { maxBytes: maxMb * 1_000_000 } : {}) };
      const dry = f['dry-run'] === true;
      const { gone, kept } = pruneRecordings(dir, transcriptsDir(env), policy, { apply: !dry });
      const rule = `each robot's newest ${megabytes(policy.maxBytes)}`;
      if (f.json === true) io.line(JSON.stringify({ dryRun: dry, maxMb: policy.maxBytes / 1_000_000, pruned: gone, kept: kept.map((k) => ({ ...k.recording, reason: k.reason })) }));
      else if (gone.length === 0 && kept.length === 0) io.line(`nothing to prune: every recording is within ${rule}`);
      else if (gone.length > 0) {
        for (const r of gone) io.line(`  ${printable(r.id)}  ${io.dim(`${printable(r.robot ?? 'transcript gone')} · ${megabytes(r.bytes)}`)}`);
        const total = megabytes(gone.reduce((n, r) => n + r.bytes, 0));
        io.line(dry ? `would delete ${gone.length} recording${gone.length === 1 ? '' : 's'} (${total}); keeping ${rule} (--dry-run: nothing deleted)` : `deleted ${gone.length} recording${gone.length === 1 ? '' : 's'} (${total}); kept ${rule}`);
      }
      // The rest were deleted; what the disk kept is the command's failure, in one line.
      if (kept.length > 0) throw new RuntimeError(`recordings prune: ${printable(keptLine(kept))}`);
      return EXIT.ok;
    }
    const hint = didYouMean(sub, ['list', 'prune']);
    throw new UsageError(`recordings: unknown sub-command "${sub}"${hint}`, hint === '' ? "use 'list' or 'prune'" : undefined);
  },
};
