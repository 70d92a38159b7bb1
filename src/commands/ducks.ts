/** `quackd ducks`: the bundled starters and the user's own ducks. */
import { parseFlags } from '../cli/args.js';
import { EXIT } from '../cli/errors.js';
import { fitTable } from '../cli/fit.js';
import { userDucksDir } from '../config/paths.js';
import { listDucks } from '../ducks/find.js';
import type { Command } from './command.js';
import type { Invocation } from '../cli/invocation.js';

const help = `usage: quackd ducks [--json]

Lists the ducks 'quackd run NAME' can find: your own (in $QUACKD_HOME/ducks, ~/.quackd/ducks by default) and the bundled starters.
A duck of yours with a starter's name is listed once, marked: it is the one 'quackd run' uses.

example:
  quackd ducks`;

export const ducksCommand: Command = {
  name: 'ducks',
  help,
  run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags } = parseFlags('ducks', argv, { json: { type: 'boolean' } });
    const ducks = listDucks(userDucksDir(env));
    if (flags.json === true) {
      io.line(JSON.stringify(ducks));
      return Promise.resolve(EXIT.ok);
    }
    const origin = (d: (typeof ducks)[number]): string => (d.shadows === 'starter' ? 'yours (wins over the starter)' : d.origin);
    // The name is what `run` takes: never cut; where it comes from may be.
    for (const line of fitTable(ducks.map((d) => [d.name, origin(d), d.title]), [{}, { min: 7, paint: io.dim }, {}], io.width())) io.line(line);
    return Promise.resolve(EXIT.ok);
  },
};
