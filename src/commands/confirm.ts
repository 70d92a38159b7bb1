/**
 * `quackd confirm ROBOT yes|no [--verb VERB]`: answers the confirmation gate a run in the service
 * is waiting on, from any terminal (a run MQTT or another SSH session started). The terminal
 * that started a run answers its own gates where it is asked.
 */
import { parseFlags } from '../cli/args.js';
import { EXIT, UsageError } from '../cli/errors.js';
import type { Invocation } from '../cli/invocation.js';
import { printable } from '../cli/output.js';
import { cliUser } from '../runtime/holder.js';
import { askService, noService, replyError } from '../service/socket/client.js';
import type { Command } from './command.js';

const help = `usage: quackd confirm ROBOT yes|no [--verb VERB]

Answers the confirmation gate the robot's run is waiting on in the running quackd serve (see
'quackd status'): yes lets the verb through, no denies it. --verb answers only a gate about that
verb, so an answer meant for a kick never opens another gate. Exits 1 when no gate was waiting.

examples:
  quackd confirm kitchen-duck yes
  quackd confirm kitchen-duck no --verb kick`;

const ANSWERS: Readonly<Record<string, boolean>> = { yes: true, y: true, no: false, n: false };

export const confirmCommand: Command = {
  name: 'confirm',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('confirm', argv, { verb: { type: 'string' } });
    const [robot, word, ...rest] = positionals;
    if (robot === undefined || word === undefined || rest.length > 0) throw new UsageError('confirm: name the robot and say yes or no', 'e.g. quackd confirm kitchen-duck yes');
    const answer = ANSWERS[word.toLowerCase()];
    if (answer === undefined) throw new UsageError(`confirm: "${printable(word)}" is not yes or no`);
    const reply = await askService(env, { op: 'confirm', robot, answer, ...(flags.verb !== undefined ? { verb: flags.verb } : {}), by: cliUser() });
    if (reply === undefined) throw noService(env);
    if (reply.type === 'error') throw replyError(reply);
    if (reply.type !== 'confirmed') throw replyError({ type: 'error', kind: 'runtime', message: `quackd serve answered ${reply.type} to confirm` });
    if (!reply.answered) {
      io.err.write(`quackd: confirm: no gate is waiting on ${printable(reply.robot)}${flags.verb !== undefined ? ` about ${printable(flags.verb)}` : ''} ('quackd status' shows what each robot is doing)\n`);
      return EXIT.failure;
    }
    io.line(`${answer ? 'confirmed' : 'denied'}: ${printable(reply.robot)}'s gate`);
    return EXIT.ok;
  },
};
