/**
 * `robot_remember(text, tags?, topic?, robot?)`: one note for the robot's body, written as an
 * assistant over MCP (source `mcp`), under the rules every note obeys: the same text refreshes the
 * old note, a topic supersedes, anything like a secret is refused, 300 characters, the cap. Its
 * arguments are the `remember` verb's own schema (src/verbs/remember.ts).
 */
import { rememberInput, remember } from '../../verbs/remember.js';
import { answering, said } from '../results.js';
import { askMemory, robotArg, type InstallTool } from '../tool.js';

export const robotRemember: InstallTool = (server, ctx) => {
  server.registerTool(
    'robot_remember',
    {
      title: 'Remember a fact for the robot',
      description: `${remember.description} The robot's next run reads it (as written by an assistant over MCP).`,
      inputSchema: rememberInput.extend({ robot: robotArg }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    ({ robot, text, tags, topic }) =>
      answering(async () => {
        const { robot: name } = await ctx.robots.pick(robot);
        const answer = await askMemory(ctx, name, { action: 'remember', text, ...(tags !== undefined ? { tags } : {}), ...(topic !== undefined ? { topic } : {}) });
        const id = answer.entry?.id ?? '?';
        const saved = JSON.stringify(answer.entry?.text ?? '');
        const head =
          answer.outcome === 'added' ? `remembered ${id} for ${answer.key}: ${saved}` : answer.outcome === 'refreshed' ? `already known: refreshed ${id} for ${answer.key}: ${saved}` : `replaced ${id} for ${answer.key}: ${saved} (was: ${JSON.stringify(answer.replaced ?? '')})`;
        const evicted = answer.evicted.length > 0 ? `\nover the cap of the body's memory: removed ${answer.evicted.join(', ')}` : '';
        return said(`${head}${evicted}`, { robot: name, body: answer.key, outcome: answer.outcome, id, evicted: [...answer.evicted] });
      }),
  );
};
