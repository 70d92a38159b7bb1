/**
 * What a command is invoked with: where it prints, the environment it reads and the input a
 * question is answered from. The bin passes the process's own; a test passes a captured Output,
 * its own environment and a scripted stdin, and runs the very same command in-process.
 */
import type { Readable } from 'node:stream';
import type { Output } from './output.js';

export interface Invocation {
  readonly io: Output;
  /** Every setting a command reads from the environment comes from here, never from process.env. */
  readonly env: NodeJS.ProcessEnv;
  readonly stdin: Readable & { readonly isTTY?: boolean };
  /** The invocation is the process's own (the bin's): its logs are the process's, with no scope of their own. */
  readonly ownsProcess?: boolean;
}
