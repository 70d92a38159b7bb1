/**
 * `quackd memory`: look at and tend a robot's memory. Each sub-verb lives in its own file under
 * commands/memory/ and is imported only when used.
 */
import { UsageError } from '../cli/errors.js';
import { didYouMean } from '../text/suggest.js';
import type { Command } from './command.js';
import type { Invocation } from '../cli/invocation.js';

const subcommands: Readonly<Record<string, { summary: string; load: () => Promise<Command> }>> = {
  show: { summary: "list a body's notes and earlier runs", load: async () => (await import('./memory/show.js')).showCommand },
  add: { summary: 'add a note, as a person', load: async () => (await import('./memory/add.js')).addCommand },
  forget: { summary: 'remove one entry by id', load: async () => (await import('./memory/forget.js')).forgetCommand },
  clear: { summary: "remove every entry of a body (asks first)", load: async () => (await import('./memory/clear.js')).clearCommand },
  export: { summary: "print a body's memory as JSONL", load: async () => (await import('./memory/export.js')).exportCommand },
  import: { summary: 'add the entries of a JSONL file', load: async () => (await import('./memory/import.js')).importCommand },
  edit: { summary: 'edit the JSONL in $EDITOR; written back in one transaction', load: async () => (await import('./memory/edit.js')).editCommand },
  search: { summary: 'find the entries that answer a question', load: async () => (await import('./memory/search.js')).searchCommand },
  doctor: { summary: 'counts per body, size, last writes, integrity check', load: async () => (await import('./memory/doctor.js')).doctorCommand },
};

const width = Math.max(...Object.keys(subcommands).map((s) => s.length));

const help = [
  "usage: quackd memory <show|add|forget|clear|export|import|edit|search|doctor> [options]",
  '',
  'Each robot body (adapter:backend) has its own memory: notes (written by the pilot with',
  '`remember`, or by you) and episodes (one line quackd writes at the end of every run).',
  'A run shows the pilot the newest 20 notes and 5 episodes.',
  '',
  ...Object.entries(subcommands).map(([name, s]) => `  ${name.padEnd(width)}  ${s.summary}`),
  '',
  "every sub-command takes --robot KEY (default: the fleet's one robot, else microduck:sim2d) and",
  "--memory-dir DIR; see 'quackd memory <sub-command> --help'.",
  '',
  'examples:',
  '  quackd memory show',
  '  quackd memory add "the charger is under the desk" --tag place',
  '  quackd memory search "where is the charger"',
].join('\n');

export const memoryCommand: Command = {
  name: 'memory',
  help,
  subcommands: true,
  async run(argv: readonly string[], invocation: Invocation): Promise<number> {
    const { io } = invocation;
    const [sub, ...rest] = argv;
    if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
      io.line(help);
      return sub === undefined ? 2 : 0;
    }
    const entry = subcommands[sub];
    if (entry === undefined) {
      const hint = didYouMean(sub, Object.keys(subcommands));
      throw new UsageError(`memory: unknown sub-command "${sub}"${hint}`, hint === '' ? "see 'quackd memory --help'" : undefined);
    }
    const command = await entry.load();
    // Each sub-command's own help, e.g. `quackd memory add --help`.
    if (rest.includes('--help') || rest.includes('-h')) {
      io.line(command.help);
      return 0;
    }
    return command.run(rest, invocation);
  },
};
