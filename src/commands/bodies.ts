/** `quackd bodies`: every `adapter:backend` quackd can drive, with its verbs. */
import { parseFlags } from '../cli/args.js';
import { EXIT } from '../cli/errors.js';
import type { Output } from '../cli/output.js';
import { DEFAULT_BODY, listBodies } from '../bodies/index.js';
import type { Command } from './command.js';

const help = `usage: quackd bodies [--json]

Lists the bodies (adapter:backend) that 'quackd run --robot' accepts, and the verbs each performs.

example:
  quackd bodies`;

export const bodiesCommand: Command = {
  name: 'bodies',
  help,
  run(argv: readonly string[], io: Output): Promise<number> {
    const { flags } = parseFlags('bodies', argv, { json: { type: 'boolean' } });
    const bodies = listBodies();
    if (flags.json === true) {
      io.line(JSON.stringify(bodies.map((b) => ({ key: b.key, description: b.description, verbs: b.verbs, pending: b.pending ?? {}, metrics: b.metrics, default: b.key === DEFAULT_BODY }))));
      return Promise.resolve(EXIT.ok);
    }
    for (const b of bodies) {
      io.line(`${io.bold(b.key)}${b.key === DEFAULT_BODY ? io.dim(' (default)') : ''}  ${b.description}`);
      const pending = Object.keys(b.pending ?? {});
      io.line(`  verbs: ${b.verbs.filter((v) => !pending.includes(v)).join(', ')}`);
      for (const v of pending) io.line(io.dim(`  not yet: ${v} (${b.pending?.[v] ?? ''})`));
      io.line(`  measures: ${b.metrics.join(', ')}`);
    }
    return Promise.resolve(EXIT.ok);
  },
};
