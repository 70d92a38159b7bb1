/**
 * `robot_run(robot?, duck)`: one whole run of a duck (a starter or one in the ducks folder, by
 * name), flown by quackd's own pilot (the config file's) under that duck's allowlist, budgets and
 * gates. A progress notification goes out per step; the answer is the outcome and the transcript.
 */
import { z } from 'zod';
import { plural } from '../../text/plural.js';
import { personGates } from '../ask-person.js';
import { answering, refused, said } from '../results.js';
import { robotLabel } from '../../runtime/fleet.js';
import { robotArg, type InstallTool } from '../tool.js';

/** A duck by name only: an MCP client never names a file for the robot's machine to read. */
const duckName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, 'a duck name (letters, digits, - and _), e.g. hello-world; never a path');

export const robotRun: InstallTool = (server, ctx) => {
  server.registerTool(
    'robot_run',
    {
      title: 'Run a duck',
      description:
        "Runs one duck on the robot with quackd's own pilot: a starter (hello-world, find-and-kick) or one in the robot's ducks folder, by name. " +
        "The duck's allowlist, budgets and confirmation gates apply. Returns the outcome (success, failure, budget, interrupted, error) and the transcript id; " +
        'sends a progress notification per step.',
      inputSchema: z.object({ robot: robotArg, duck: duckName.describe('the duck, e.g. hello-world') }).strict(),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ robot, duck }, extra) =>
      answering(async () => {
        const { robot: name } = await ctx.robots.pick(robot);
        const gates = personGates(ctx.asker(), name, () => extra.requestId);
        const token = extra._meta?.progressToken;
        const lines: string[] = [];
        let total = 0;
        const handle = await ctx.backend.start({
          robot: name,
          duck,
          gates: gates.gates,
          by: ctx.by(),
          ...(gates.onGate !== undefined ? { onGate: gates.onGate } : {}),
          onEvent: (event) => {
            gates.seen(event);
            if (event.type === 'start') total = event.budgets['steps'] ?? 0;
            if (event.type === 'refused') lines.push(`     ${event.name} (refused: ${event.reason})`);
            if (event.type !== 'verb_result') return;
            const line = `${String(event.step ?? '').padStart(3)}  ${event.label} — ${event.summary}`;
            lines.push(line);
            if (token !== undefined && event.step !== undefined) {
              void extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: event.step, ...(total > 0 ? { total } : {}), message: line.trim() } }).catch(() => undefined);
            }
          },
        });
        const cancel = (): void => handle.stop('the MCP client cancelling it');
        extra.signal.addEventListener('abort', cancel, { once: true });
        ctx.runs.add(handle);
        const report = await handle.done.finally(() => {
          extra.signal.removeEventListener('abort', cancel);
          ctx.runs.delete(handle);
        });
        const { run } = handle;
        const text = [
          `${run.duck.name} on ${robotLabel(run.robot, run.key)} · pilot ${run.pilot}`,
          ...lines,
          `${report.outcome.status} — ${report.outcome.reason} · ${plural(report.steps, 'step')}, ${plural(report.llmCalls, 'call')}, ${report.seconds} s · transcript ${report.runId}`,
        ].join('\n');
        const structured = { robot: run.robot, body: run.key, duck: run.duck.name, runId: report.runId, outcome: report.outcome.status, reason: report.outcome.reason, steps: report.steps, llmCalls: report.llmCalls, seconds: report.seconds };
        return report.outcome.status === 'error' ? refused(text, structured) : said(text, structured);
      }),
  );
};
