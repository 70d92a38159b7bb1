/** `quackd ducks`: the bundled starters and the user's own ducks. */
import { parseFlags } from '../cli/args.js';
import { EXIT } from '../cli/errors.js';
import type { Output } from '../cli/output.js';
import { userDucksDir } from '../config/paths.js';
import { listDucks } from '../ducks/find.js';
import type { Command } from './command.js';

const help = `usage: quackd ducks [--json]

Lists the ducks 'quackd run NAME' can find: your own (in ${userDucksDir()}) and the bundled starters.

example:
  quackd ducks`;

export const ducksCommand: Command = {
  name: 'ducks',
  help,
  run(argv: readonly string[], io: Output): Promise<number> {
    const { flags } = parseFlags('ducks', argv, { json: { type: 'boolean' } });
    const ducks = listDucks();
    if (flags.json === true) {
      io.line(JSON.stringify(ducks));
      return Promise.resolve(EXIT.ok);
    }
    const width = Math.max(...ducks.map((d) => d.name.length));
    for (const d of ducks) io.line(`${d.name.padEnd(width)}  ${io.dim(d.origin === 'starter' ? 'starter' : 'yours  ')}  ${d.title}`);
    return Promise.resolve(EXIT.ok);
  },
};
