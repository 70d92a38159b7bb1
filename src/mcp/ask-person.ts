/**
 * A confirmation gate put to the person at the MCP client, through MCP elicitation, when the
 * client declared it can ask one. A client that cannot ask gets every gate shut: a motor never
 * moves because nobody could be asked. Only an explicit yes opens a gate; a decline, a dismissed
 * form, an error or a gate that closed first (its timeout, the run stopping) is a no. An error is
 * recorded as such (`unasked`), never as the person's no: they may never have seen the question.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { logger } from '../log.js';

/** Puts one gate's question to a person; resolves true only for their yes, `unasked` when it could not be put. */
export type AskPerson = (robot: string, question: string, via: { readonly signal: AbortSignal; readonly relatedRequestId?: RequestId }) => Promise<boolean | 'unasked'>;

/** A gate's answer from the person's side: their yes or no, or (`how`) that the question could not be put. */
export type GateAnswer = (allowed: boolean, how?: 'unasked') => void;

/** The client declared elicitation: it can put a question to a person. */
export function canAskPerson(server: McpServer): boolean {
  return server.server.getClientCapabilities()?.elicitation !== undefined;
}

/**
 * `den: 5 kick right — confirm?`, asked on the stream of the tool call the gate belongs to
 * (`relatedRequestId`: over HTTP, that call's response stream).
 */
export function personAsker(server: McpServer): AskPerson {
  return async (robot, question, { signal, relatedRequestId }) => {
    try {
      const reply = await server.server.elicitInput(
        {
          mode: 'form',
          message: `${robot}: ${question.trim().replace(/\s+/g, ' ')} — confirm?`,
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean', title: 'Let the robot do it', description: 'Only a yes lets the robot move; anything else keeps it still.' } },
            required: ['confirm'],
          },
        },
        { signal, ...(relatedRequestId !== undefined ? { relatedRequestId } : {}) },
      );
      return reply.action === 'accept' && reply.content?.['confirm'] === true;
    } catch (err) {
      // The gate's own close withdraws the question too (the signal): that is no failure to ask.
      if (signal.aborted) return false;
      logger('mcp').warn({ robot, err: err instanceof Error ? err.message : String(err) }, 'a gate could not be put to the person at the MCP client');
      return 'unasked';
    }
  };
}

/**
 * The gate half of a run asked for over MCP: with a person to ask, each gate goes to them (and
 * their question is withdrawn once the gate closed otherwise); without one, every gate is shut.
 * `seen` takes the run's transcript events; `call` is the tool call the gate belongs to now.
 */
export function personGates(ask: AskPerson | undefined, robot: string, call: () => RequestId | undefined): { readonly gates: 'ask' | 'deny'; readonly onGate?: (question: string, verb: string, answer: GateAnswer) => void; seen(event: { readonly type: string }): void } {
  if (ask === undefined) return { gates: 'deny', seen: () => undefined };
  let open: AbortController | undefined;
  return {
    gates: 'ask',
    onGate: (question, _verb, answer) => {
      open?.abort();
      const asking = new AbortController();
      open = asking;
      const relatedRequestId = call();
      void ask(robot, question, { signal: asking.signal, ...(relatedRequestId !== undefined ? { relatedRequestId } : {}) }).then((said) => {
        if (!asking.signal.aborted) answer(said === true, said === 'unasked' ? 'unasked' : undefined);
      });
    },
    seen: (event) => {
      if (event.type === 'gate' || event.type === 'end') open?.abort();
    },
  };
}
