/**
 * `quackd ARGV` over every verb: the dispatcher (dispatch.ts) with the full table
 * (commands/index.ts). Tests run a command in-process through this, with captured streams.
 */
import { commands } from '../commands/index.js';
import { dispatch } from './dispatch.js';
import type { Invocation } from './invocation.js';

/** Runs `quackd ARGV` and returns its exit code. */
export function quackd(argv: readonly string[], invocation: Invocation): Promise<number> {
  return dispatch(commands, argv, invocation);
}
