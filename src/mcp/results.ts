/**
 * How the tools answer: text for the model, structured content beside it where a client may want
 * the facts, and every error a caller can cause as an isError result in one line (the domain
 * errors' own words and hint), never a protocol error and never a crash. A bug is logged and
 * answered the same way.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { QuackdError } from '../errors.js';
import { logger } from '../log.js';
import { RelayBusy } from '../pilot/providers/relay.js';
import { RobotBusy } from '../runtime/body-pool.js';
import { RobotSettingsError, UnknownRobot } from '../runtime/fleet.js';

export function said(text: string, structured?: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], ...(structured !== undefined ? { structuredContent: structured } : {}) };
}

/** Nothing was done: the words say why. */
export function refused(text: string, structured?: Record<string, unknown>): CallToolResult {
  return { ...said(text, structured), isError: true };
}

export function errorLine(err: unknown): string {
  if (err instanceof QuackdError) return `${err.message}${err.hint !== undefined ? ` (${err.hint})` : ''}`;
  if (err instanceof UnknownRobot || err instanceof RobotSettingsError || err instanceof RobotBusy || err instanceof RelayBusy) return err.message;
  logger('mcp').error({ err }, 'a tool failed');
  return `internal error in quackd: ${err instanceof Error ? err.message : String(err)}`;
}

/** A tool's work, with any error it throws answered as an isError result. */
export async function answering(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (err) {
    return refused(errorLine(err));
  }
}

