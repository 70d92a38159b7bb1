/**
 * What a bin does around the dispatcher: the process's arguments, streams and environment handed
 * over, its answer made the exit code. src/main.ts is the bin; the bundle's launcher
 * (cross/launcher.ts) is another, over the socket clients alone.
 */
import type { Invocation } from './invocation.js';
import { EXIT } from './errors.js';
import { createOutput } from './output.js';
import { ONNX_TELEMETRY_OFF } from '../policy/telemetry.js';

export function startBin(run: (argv: readonly string[], invocation: Invocation) => Promise<number>): void {
  // `quackd run … | head -1` closes the pipe early: that is no reason to leave a body moving or a
  // transcript unfinished. Output to a closed pipe is dropped and the command ends as it would.
  // A terminal that hung up (the SSH session dropped: SIGHUP) answers EIO: the same.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE' && err.code !== 'EIO') throw err;
      stream.write = () => true;
    });
  }
  // Before any worker loads a policy: onnxruntime's telemetry off unless the user's environment set it.
  process.env[ONNX_TELEMETRY_OFF.name] ??= ONNX_TELEMETRY_OFF.value;
  // A command still waiting when the event loop has nothing left to wake it (a promise tied to an
  // unref'd handle, a bug) would end the process with code 0 and its last lines unprinted: a run
  // that never said how it ended read as a success. It is said as the bug it is, and fails.
  let settled = false;
  process.once('beforeExit', () => {
    if (settled) return;
    process.stderr.write('quackd: internal error: the command stopped with nothing left to wait on, before it finished; this is a bug\n');
    process.exitCode = EXIT.runtime;
  });
  void run(process.argv.slice(2), {
    io: createOutput(process.stdout, process.stderr, process.env),
    env: process.env,
    ownsProcess: true,
    // Touched only by a command that reads it: process.stdin builds a stream (and loads node's
    // file streams) on first use, most of what `quackd status` would spend beyond node itself.
    get stdin() {
      return process.stdin;
    },
  }).then((code) => {
    settled = true;
    process.exitCode = code;
  });
}
