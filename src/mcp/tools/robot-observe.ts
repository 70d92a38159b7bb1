/**
 * `robot_observe(robot?)`: what the robot's sensors say. Nothing moves. In a robot_verb session
 * it is that session's robot as of its last verb; between runs the service observes it (a
 * simulator opens the world its next run starts in); a robot running a duck is busy.
 */
import { z } from 'zod';
import { answering, said } from '../results.js';
import { robotLabel } from '../../runtime/fleet.js';
import { robotArg, type InstallTool } from '../tool.js';

export const robotObserve: InstallTool = (server, ctx) => {
  server.registerTool(
    'robot_observe',
    {
      title: "Read the robot's sensors",
      description: "What the robot's sensors report now (what it sees, where it is, its battery where it has one). Moves nothing.",
      inputSchema: z.object({ robot: robotArg }).strict(),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ robot }) =>
      answering(async () => {
        const status = await ctx.robots.pick(robot);
        const session = await ctx.sessions.observation(status.robot);
        if (session !== undefined) {
          return said(`${robotLabel(status.robot, status.key)} after the last verb of this session (transcript ${session.runId}):\n${session.observation.summary}`, { robot: status.robot, body: status.key, runId: session.runId, observation: { ...session.observation.data } });
        }
        // The session's own robot, its first verb not answered yet: nothing to read but that verb's answer (the robot is the session's, busy for a look from outside).
        if (ctx.sessions.isOpen(status.robot)) return said(`${robotLabel(status.robot, status.key)}: this session's first verb is still under way; its answer says what the robot sees`, { robot: status.robot, body: status.key });
        const seen = await ctx.backend.observe(status.robot, ctx.by());
        const world = seen.perRun ? `\n(${seen.key} opens a fresh world for every run: this is the one the next run starts in)` : '';
        return said(`${robotLabel(seen.robot, seen.key)} now:\n${seen.observation.summary}${world}`, { robot: seen.robot, body: seen.key, observation: { ...seen.observation.data } });
      }),
  );
};
