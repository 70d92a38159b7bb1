/**
 * The shape of a CLI verb: one file per verb in src/commands, parsing its flags, calling into the
 * library and printing. No robot logic lives in a command.
 */
import type { Invocation } from '../cli/invocation.js';

export interface Command {
  /** e.g. `run`, `transcript`. */
  readonly name: string;
  /** Full help text, with usage and an example. */
  readonly help: string;
  /** Has sub-commands with help of their own: `--help` after a sub-command is theirs. */
  readonly subcommands?: boolean;
  /** Returns the process exit code. Throw a QuackdError for user-facing errors. */
  run(argv: readonly string[], invocation: Invocation): Promise<number>;
}

/** A verb in a table: its one-line summary for `quackd --help`, and its file, imported on use. */
export interface CommandEntry {
  readonly summary: string;
  readonly load: () => Promise<Command>;
}

export type CommandTable = Readonly<Record<string, CommandEntry>>;
