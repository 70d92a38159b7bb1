/**
 * `quackd logs [-f] [-n N]`: the service's log. Under systemd that is the journal (journalctl -u
 * quackd); a `quackd serve` started by hand logs to the stderr of the terminal it runs in, and
 * this says so rather than show nothing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { numberFlag, parseFlags } from '../cli/args.js';
import { EXIT, RuntimeError, UsageError } from '../cli/errors.js';
import type { Invocation } from '../cli/invocation.js';
import { onStopSignals } from '../cli/signals.js';
import { askService } from '../service/socket/client.js';
import type { Command } from './command.js';

const UNIT = 'quackd.service';

const help = `usage: quackd logs [-f] [-n N]

Shows the service's log: under systemd, its journal (journalctl -u quackd), the last N lines
(default 50), and with -f new ones as they come until Ctrl-C. A 'quackd serve' started by hand
logs to the stderr of its own terminal (JSON lines when that is not a terminal, or with
QUACKD_LOG_JSON=1); then this says so and exits 3.

examples:
  quackd logs
  quackd logs -f
  quackd logs -n 200 | grep warn`;

/** systemd runs this machine and knows the quackd unit. */
function underSystemd(): boolean {
  if (!existsSync('/run/systemd/system')) return false;
  try {
    return execFileSync('systemctl', ['show', '-p', 'LoadState', '--value', UNIT], { encoding: 'utf8', timeout: 3000, stdio: ['ignore', 'pipe', 'ignore'] }).trim() === 'loaded';
  } catch {
    return false;
  }
}

export const logsCommand: Command = {
  name: 'logs',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('logs', argv, { follow: { type: 'boolean', short: 'f' }, lines: { type: 'string', short: 'n' } });
    if (positionals.length > 0) throw new UsageError('logs: takes no arguments', "see 'quackd logs --help'");
    const lines = numberFlag('lines', flags.lines, { int: true, min: 1, max: 1_000_000 }) ?? 50;
    if (!underSystemd()) {
      const reply = await askService(env, { op: 'status' }).catch(() => undefined);
      const pid = reply?.type === 'status' ? reply.status.service.pid : undefined;
      throw new RuntimeError(
        pid !== undefined ? `quackd serve (pid ${pid}) is not under systemd here: it logs to the stderr of the terminal that started it` : 'quackd serve is not under systemd here: started by hand, it logs to the stderr of its own terminal',
        'systemd/README.md installs it as a service, whose journal this shows',
      );
    }
    const stop = onStopSignals();
    try {
      const child = spawn('journalctl', ['-u', UNIT, '-n', String(lines), '--no-pager', ...(flags.follow === true ? ['-f'] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
      child.stdout.pipe(io.out, { end: false });
      child.stderr.pipe(io.err, { end: false });
      stop.signal.addEventListener('abort', () => child.kill('SIGTERM'), { once: true });
      const code = await new Promise<number | null>((resolve, reject) => {
        child.once('error', (err) => reject(new RuntimeError(`cannot run journalctl (${err.message})`)));
        child.once('close', (c) => resolve(c));
      });
      return stop.exitCode() ?? (code === 0 ? EXIT.ok : EXIT.runtime);
    } finally {
      stop.dispose();
    }
  },
};
