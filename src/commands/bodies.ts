/** `quackd bodies`: every `adapter:backend` quackd can drive, with its verbs. */
import { parseFlags } from '../cli/args.js';
import { EXIT } from '../cli/errors.js';
import { fitLine } from '../cli/fit.js';
import { DEFAULT_BODY, listBodies } from '../bodies/index.js';
import type { Command } from './command.js';
import type { Invocation } from '../cli/invocation.js';

const help = `usage: quackd bodies [--json]

Lists the bodies (adapter:backend) that 'quackd run --robot' accepts, and the verbs each performs.

example:
  quackd bodies`;

export const bodiesCommand: Command = {
  name: 'bodies',
  help,
  run(argv: readonly string[], { io }: Invocation): Promise<number> {
    const { flags } = parseFlags('bodies', argv, { json: { type: 'boolean' } });
    const bodies = listBodies();
    if (flags.json === true) {
      io.line(JSON.stringify(bodies.map((b) => ({ key: b.key, description: b.description, verbs: b.verbs, pending: b.pending ?? {}, metrics: b.metrics, default: b.key === DEFAULT_BODY }))));
      return Promise.resolve(EXIT.ok);
    }
    // One column for the keys, one for the labels: descriptions and lists start at the same place.
    const DEFAULT = ' (default)';
    const keyWidth = Math.max(...bodies.map((b) => b.key.length + (b.key === DEFAULT_BODY ? DEFAULT.length : 0)));
    const LABEL = 'measures';
    const row = (label: string, text: string): string => fitLine(`  ${label.padEnd(LABEL.length)}  ${text}`, io.width(), LABEL.length + 4);
    for (const b of bodies) {
      const mark = b.key === DEFAULT_BODY ? DEFAULT : '';
      io.line(fitLine(`${io.bold(b.key)}${io.dim(mark)}${' '.repeat(keyWidth - b.key.length - mark.length)}  ${b.description}`, io.width(), keyWidth + 2));
      const pending = Object.keys(b.pending ?? {});
      io.line(row('verbs', b.verbs.filter((v) => !pending.includes(v)).join(', ')));
      for (const v of pending) io.line(io.dim(row('not yet', `${v} (${b.pending?.[v] ?? ''})`)));
      io.line(row(LABEL, b.metrics.join(', ')));
    }
    return Promise.resolve(EXIT.ok);
  },
};
