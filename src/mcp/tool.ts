/**
 * What every tool file gets: the backend (the robots, wherever they are held), the robot a call
 * means, robot_verb's sessions and the person at the client. A tool file registers one tool.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { RunBy } from '../runtime/holder.js';
import type { MemoryAnswer, MemoryAsk } from '../service/api.js';
import type { AskPerson } from './ask-person.js';
import type { Backend, RunHandle } from './backend.js';
import type { RobotScope } from './robots.js';
import type { VerbSessions } from './sessions.js';

export interface ToolContext {
  readonly backend: Backend;
  readonly robots: RobotScope;
  readonly sessions: VerbSessions;
  /** Puts a gate to the person at the client; undefined when it cannot ask one. */
  readonly asker: () => AskPerson | undefined;
  /** The verbs robot_verb may call on some robot here, declarations included, in order. */
  readonly sessionVerbs: readonly string[];
  /** Who asks, as a robot's holder: this MCP session and its client. */
  readonly by: () => RunBy;
  /** robot_run's runs under way on this connection: they stop when it ends, as its sessions do. */
  readonly runs: Set<RunHandle>;
}

export type InstallTool = (server: McpServer, ctx: ToolContext) => void;

export const robotArg = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe('the robot: a name from robot_list (or a body key such as microduck:sim2d); may be left out when the server looks after one robot');

/** The backend's answer to one memory ask, of that ask's own kind. */
export async function askMemory<K extends MemoryAsk['action']>(ctx: ToolContext, robot: string, ask: Extract<MemoryAsk, { action: K }>): Promise<Extract<MemoryAnswer, { action: K }>> {
  const answer = await ctx.backend.memory(robot, ask);
  if (answer.action !== ask.action) throw new Error(`the memory answered "${answer.action}" to "${ask.action}"`);
  return answer as Extract<MemoryAnswer, { action: K }>;
}
