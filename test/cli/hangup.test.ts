/**
 * An SSH session that drops, as the kernel does it: quackd runs on a pty as its session leader
 * (util-linux `script`), and the pty's master goes away while the pilot waits for the model. The
 * kernel sends SIGHUP and every later write to the terminal fails with EIO; the run must still
 * stop the body, end its transcript with the reason and exit without a crash.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAIN } from '../helpers/cli.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { skipOutsideCi } from '../helpers/skip.js';
import { tempDir } from '../helpers/tmp.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function noScript(): string | undefined {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'needs script (util-linux)';
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

describe('a terminal that hangs up during a run', { skip: skipOutsideCi(noScript()) }, () => {
  let server: LlmServer;
  before(async () => {
    server = await startLlmServer();
  });
  after(async () => server.close());

  it('stops the run cleanly: body stopped, transcript ended "stopped by SIGHUP", no crash on EIO', async () => {
    server.reply({ kind: 'hang' });
    const home = tempDir('quackd-hup-');
    const pidFile = join(home, 'pid');
    const errFile = join(home, 'stderr');
    const run = [process.execPath, MAIN, 'run', 'hello-world', '--provider', 'openai', '--base-url', `${server.url}/v1`, '--model', 'm', '--timeout', '60'].map(quote).join(' ');
    // exec: quackd itself is the session leader, so the hangup's SIGHUP goes to it.
    const cmd = `echo $$ > ${quote(pidFile)}; exec env QUACKD_HOME=${quote(home)} OPENAI_API_KEY=k ${run} 2>${quote(errFile)}`;
    const terminal = spawn('script', ['-qfec', cmd, '/dev/null'], { stdio: ['pipe', 'ignore', 'ignore'] });
    let pid = 0;
    try {
      const until = Date.now() + 15_000;
      while (server.requests.length === 0 && Date.now() < until) await sleep(20);
      assert.ok(server.requests.length > 0, 'the pilot never asked the model');
      pid = Number(readFileSync(pidFile, 'utf8').trim());
      // Let the transient "waiting for the pilot" line reach the terminal first.
      await sleep(1200);
      terminal.kill('SIGKILL'); // the SSH server's end of the pty is gone
      while (alive(pid) && Date.now() < until) await sleep(20);
      assert.equal(alive(pid), false, 'quackd did not stop after the hangup');
    } finally {
      if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
      terminal.kill('SIGKILL');
    }
    const dir = join(home, 'transcripts');
    const raw = readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8');
    assert.match(raw, /"type":"body_stop","ok":true/);
    assert.match(raw, /"type":"end","outcome":"interrupted","reason":"stopped by SIGHUP"/);
    // Node 20 itself may abort after quackd is done, restoring the mode of a terminal that is gone
    // (nodejs/node#51519, fixed upstream by #58200): by then the body is stopped and the
    // transcript closed. Anything else on stderr is quackd's.
    const stderr = existsSync(errFile) ? readFileSync(errFile, 'utf8') : '';
    assert.equal(stderr.replace(/\s*#\s+\S+\[\d+\]: void node::ResetStdio\(\)[\s\S]*$/, ''), '', 'quackd crashed writing to the hung-up terminal');
  });
});
