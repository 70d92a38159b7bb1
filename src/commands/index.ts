/**
 * The CLI's table of verbs. main.ts looks a verb up here and imports only that file, so a
 * command starts without loading what other commands need.
 */
import type { Command } from './command.js';

export interface CommandEntry {
  readonly summary: string;
  readonly load: () => Promise<Command>;
}

export const commands: Readonly<Record<string, CommandEntry>> = {
  run: { summary: 'run a .duck on a body (default: the Microduck simulator)', load: async () => (await import('./run.js')).runCommand },
  ducks: { summary: 'list the bundled starter ducks and your own', load: async () => (await import('./ducks.js')).ducksCommand },
  transcript: { summary: 'list and show run transcripts', load: async () => (await import('./transcript.js')).transcriptCommand },
  bodies: { summary: 'list the bodies quackd can drive (adapter:backend)', load: async () => (await import('./bodies.js')).bodiesCommand },
};
