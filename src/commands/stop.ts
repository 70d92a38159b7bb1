/** `quackd stop [ROBOT]`: an emergency stop through the running service, in or outside a run. */
import { parseFlags } from '../cli/args.js';
import { EXIT, UsageError } from '../cli/errors.js';
import type { Invocation } from '../cli/invocation.js';
import { printable } from '../cli/output.js';
import { cliUser } from '../runtime/holder.js';
import { askService, noService, replyError } from '../service/socket/client.js';
import type { Command } from './command.js';

const help = `usage: quackd stop [ROBOT] [--json]

Emergency stop through the running quackd serve: the robot's run (if one is under way) ends as
interrupted and its body stops moving at once (within one control period), not at the run's next
step. Without a name, every robot stops. A body that did not confirm the stop (its link down)
is named on stderr, exit 3. Without a running service it says so and exits 3 (a run in this
terminal stops with Ctrl-C).

examples:
  quackd stop
  quackd stop kitchen-duck`;

export const stopCommand: Command = {
  name: 'stop',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('stop', argv, { json: { type: 'boolean' } });
    if (positionals.length > 1) throw new UsageError('stop: one robot, or none for all of them');
    const robot = positionals[0];
    const reply = await askService(env, { op: 'stop', ...(robot !== undefined ? { robot } : {}), by: cliUser() });
    if (reply === undefined) throw noService(env);
    if (reply.type === 'error') throw replyError(reply);
    if (reply.type !== 'stopped') throw replyError({ type: 'error', kind: 'runtime', message: `quackd serve answered ${reply.type} to stop` });
    const unconfirmed = reply.unconfirmed ?? [];
    if (flags.json === true) io.line(JSON.stringify({ stopped: reply.robots, ...(unconfirmed.length > 0 ? { unconfirmed } : {}) }));
    else io.line(reply.robots.length === 0 ? 'stopped: no robots in the fleet' : `stopped ${reply.robots.map(printable).join(', ')}`);
    // Asked of every body, but not every body said so: a stop nobody confirmed is not a success.
    for (const u of unconfirmed) io.err.write(`quackd: ${printable(u.robot)}: its body did not confirm the stop: ${printable(u.why)}\n`);
    return unconfirmed.length > 0 ? EXIT.runtime : EXIT.ok;
  },
};
