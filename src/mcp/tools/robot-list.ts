/** `robot_list`: the robots this server looks after, what each is doing, its run and last outcome. */
import { z } from 'zod';
import { bodyFacts } from '../../runtime/robot-status.js';
import type { RobotStatus } from '../../service/api.js';
import { answering, said } from '../results.js';
import type { InstallTool } from '../tool.js';

/** `den · microduck:sim2d · running`, then what it is doing, one line each. */
function describe(s: RobotStatus): string {
  return [
    `${s.robot === s.key ? s.robot : `${s.robot} · ${s.key}`} · ${s.activity}`,
    ...(s.run !== undefined ? [`  run: ${s.run.duck} · step ${s.run.step} · since ${s.run.startedAt} · transcript ${s.run.runId}`] : []),
    ...(s.gate !== undefined ? [`  gate waiting since ${s.gate.since}: ${s.gate.question.trim()} — confirm?`] : []),
    ...(s.lastOutcome !== undefined ? [`  last run: ${s.lastOutcome.duck} · ${s.lastOutcome.status} — ${s.lastOutcome.reason} · transcript ${s.lastOutcome.runId}`] : []),
    ...(bodyFacts(s).length > 0 ? [`  body: ${bodyFacts(s).join(' · ')}`] : []),
  ].join('\n');
}

export const robotList: InstallTool = (server, ctx) => {
  server.registerTool(
    'robot_list',
    {
      title: 'The robots',
      description: 'The robots this server looks after: each one\'s name, body (adapter:backend), what it is doing (idle, running a duck, stopping, fallen, offline), its current run and gate, and how its last run ended.',
      inputSchema: z.object({}).strict(),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    () =>
      answering(async () => {
        const robots = await ctx.robots.list();
        return said(robots.map(describe).join('\n'), { robots: robots.map((r) => ({ ...r })) });
      }),
  );
};
