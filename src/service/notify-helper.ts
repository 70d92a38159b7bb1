/**
 * The hand that posts quackd's sd_notify messages: one /bin/sh, started while quackd is still
 * small, that runs systemd-notify for each line quackd writes to it and answers with its exit
 * status. Spawning systemd-notify from quackd itself would fork the whole service each time:
 * measured with bench/sd-notify.ts (2-core x64 VM, busy), at 380 MB of RSS spawn() holds the main
 * thread 17–39 ms (p50; p99 up to 200 ms), and the fork write-protects every page the control
 * thread writes next. Through the shell quackd writes a line to a pipe: 0.05 ms (p99 3–7 ms).
 * The shell reads its input to the end, so a message written just before quackd exits
 * (STOPPING=1) is still sent; at EOF it exits, so it never outlives quackd for long.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** Posts one message (newline-separated `KEY=value` lines); resolves once systemd has it. */
export interface NotifySender {
  /** Starts the shell now, while quackd is small (else the first send does). */
  open(): void;
  send(message: string): Promise<void>;
  close(): void;
}

/** What the shell gets to answer a line, systemd-notify's own 5 s barrier wait included. */
const ANSWER_DEADLINE_MS = 7000;

// A line is the message's KEY=value pairs joined by tabs: one argument each to systemd-notify.
// The answer is its exit status and the first line it printed, tab-separated.
const SCRIPT = `set -f
tab=$(printf '\\t')
nl='
'
while IFS= read -r line; do
  IFS=$tab
  set -- $line
  IFS=' '
  said=$(systemd-notify "$@" 2>&1 >/dev/null)
  status=$?
  printf '%s\\t%s\\n' "$status" "\${said%%"$nl"*}"
done`;

interface Shell {
  readonly child: ChildProcessByStdio<Writable, Readable, null>;
  /** Who waits for the next answers, oldest first (one at most: notify.ts sends one at a time). */
  readonly waiting: ((answer: string | Error) => void)[];
}

function startShell(env: NodeJS.ProcessEnv, ended: (shell: Shell) => void): Shell {
  const child = spawn('/bin/sh', ['-c', SCRIPT], { env, stdio: ['pipe', 'pipe', 'ignore'] });
  const shell: Shell = { child, waiting: [] };
  const fail = (err: Error) => shell.waiting.splice(0).forEach((w) => w(err));
  // Never what keeps quackd running: whatever is written is sent after quackd has gone, too.
  child.unref();
  for (const pipe of [child.stdin, child.stdout]) (pipe as { unref?: () => void }).unref?.();
  child.stdin.on('error', () => undefined);
  createInterface({ input: child.stdout }).on('line', (line) => shell.waiting.shift()?.(line));
  child.on('error', fail);
  child.on('exit', () => {
    ended(shell);
    fail(new Error('the notify shell ended'));
  });
  return shell;
}

export function notifyHelper(env: NodeJS.ProcessEnv): NotifySender {
  let shell: Shell | undefined;
  const ended = (gone: Shell) => {
    if (shell === gone) shell = undefined;
  };

  return {
    open() {
      shell ??= startShell(env, ended);
    },
    send(message) {
      const to = (shell ??= startShell(env, ended));
      const line = `${message.replace(/\t/g, ' ').split('\n').join('\t')}\n`;
      const answered = new Promise<string | Error>((resolve) => to.waiting.push(resolve));
      to.child.stdin.write(line);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<Error>((resolve) => {
        timer = setTimeout(() => resolve(new Error(`no answer within ${ANSWER_DEADLINE_MS / 1000} s`)), ANSWER_DEADLINE_MS);
        timer.unref();
      });
      return Promise.race([answered, late]).then((answer) => {
        clearTimeout(timer);
        if (answer instanceof Error) {
          // A stuck shell is replaced by the next message's.
          to.child.kill();
          ended(to);
          throw answer;
        }
        const [status = '', said = ''] = answer.split('\t');
        if (status === '0') return;
        // 127: the shell found no systemd-notify.
        if (status === '127') throw Object.assign(new Error('systemd-notify is not installed'), { code: 'ENOENT' });
        throw new Error(`systemd-notify: ${said !== '' ? said : `exit ${status}`}`);
      });
    },
    close() {
      shell?.child.stdin.end();
      shell = undefined;
    },
  };
}
