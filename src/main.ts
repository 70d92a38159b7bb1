#!/usr/bin/env node
/**
 * The `quackd` bin: the process's arguments, streams and environment handed to the dispatcher
 * (src/cli/quackd.ts), and its answer made the exit code. Nothing else happens here.
 */
import { createOutput } from './cli/output.js';
import { quackd } from './cli/quackd.js';

// `quackd run … | head -1` closes the pipe early: that is no reason to leave a body moving or a
// transcript unfinished. Output to a closed pipe is dropped and the command ends as it would.
// A terminal that hung up (the SSH session dropped: SIGHUP) answers EIO: the same.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && err.code !== 'EIO') throw err;
    stream.write = () => true;
  });
}

process.exitCode = await quackd(process.argv.slice(2), {
  io: createOutput(process.stdout, process.stderr, process.env),
  env: process.env,
  stdin: process.stdin,
});
