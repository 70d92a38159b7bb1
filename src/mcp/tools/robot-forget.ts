/** `robot_forget(id, robot?)`: removes one note or episode of the robot's body (ids come from robot_recall with a query). */
import { z } from 'zod';
import { answering, refused, said } from '../results.js';
import { askMemory, robotArg, type InstallTool } from '../tool.js';

export const robotForget: InstallTool = (server, ctx) => {
  server.registerTool(
    'robot_forget',
    {
      title: 'Forget one memory entry',
      description: "Removes one note or earlier run from the robot's memory by its id (robot_recall with a query shows ids, e.g. n-3k9x2a).",
      inputSchema: z.object({ id: z.string().min(1).max(40).describe('the entry id, e.g. n-3k9x2a'), robot: robotArg }).strict(),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ id, robot }) =>
      answering(async () => {
        const { robot: name } = await ctx.robots.pick(robot);
        const answer = await askMemory(ctx, name, { action: 'forget', id });
        const gone = answer.forgotten;
        if (gone === undefined) return refused(`no entry ${JSON.stringify(id)} in the memory of ${answer.key} (robot_recall with a query shows the ids)`);
        return said(`forgot ${gone.id} (${gone.kind}) from ${answer.key}: ${JSON.stringify(gone.text)}`, { robot: name, body: answer.key, id: gone.id, kind: gone.kind });
      }),
  );
};
