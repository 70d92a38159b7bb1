/**
 * `robot_verb(robot?, verb, args)`: one verb, piloted by the MCP client, through the executor of a
 * run of the server's duck (sessions.ts): the duck's allowlist, the verb's own zod schema, the
 * budgets and the confirmation gates, exactly as in `quackd run`. The input schema ties each verb
 * to its arguments' JSON Schema from the verb registry; the executor checks them, so a refusal is
 * in the session's transcript and nothing moves.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { GateHow } from '../../safety/gate.js';
import { plural } from '../../text/plural.js';
import type { TranscriptEvent } from '../../transcript/events.js';
import { DECLARE_VERBS, everyVerb, verbJsonSchema } from '../../verbs/registry.js';
import { answering, refused, said } from '../results.js';
import { robotLabel } from '../../runtime/fleet.js';
import type { VerbReply } from '../sessions.js';
import { robotArg, type InstallTool } from '../tool.js';

const DENIED: Readonly<Record<GateHow, string>> = {
  'no-tty': "it needs a person's yes, and this MCP client cannot ask one (it has no elicitation)",
  person: 'the person said no',
  channel: 'denied over MQTT',
  tty: 'the person said no',
  timeout: 'nobody answered in time',
  unasked: "the question could not be put to the person at this MCP client (its elicitation failed)",
  aborted: 'the session was stopped',
  yes: 'not confirmed',
};

/** Each verb's arguments, as JSON Schema `if verb is X then args is X's schema`. */
function argsByVerb(verbs: readonly string[]): Record<string, unknown>[] {
  return verbs.flatMap((name) => {
    const verb = everyVerb.get(name);
    if (verb === undefined) return [];
    const schema = verbJsonSchema(verb);
    const required = Array.isArray(schema['required']) && schema['required'].length > 0;
    return [{ if: { properties: { verb: { const: name } }, required: ['verb'] }, then: { properties: { args: schema }, ...(required ? { required: ['args'] } : {}) } }];
  });
}

function inputFor(verbs: readonly string[]) {
  return z
    .object({
      robot: robotArg,
      verb: z.string().min(1).max(64).describe(`the verb: ${verbs.join(', ')}`),
      args: z.record(z.string(), z.unknown()).optional().describe('its arguments, e.g. {"metres": 1.0} for walk; left out for a verb that takes none'),
    })
    .strict()
    .meta({ allOf: argsByVerb(verbs) });
}

const find = <T extends TranscriptEvent['type']>(events: readonly TranscriptEvent[], type: T) => events.find((e): e is Extract<TranscriptEvent, { type: T }> => e.type === type);

function answer(name: string, reply: VerbReply): CallToolResult {
  const { run, events, step, ended } = reply;
  const allowed = [...reply.verbs.filter((v) => v !== 'remember'), ...DECLARE_VERBS];
  const lines: string[] = [];
  const before = reply.previous;
  if (before !== undefined) lines.push(`the last session (transcript ${before.runId}) ended between calls: ${before.outcome.status} — ${before.outcome.reason}`);
  if (reply.fresh) {
    const b = run.duck.budgets;
    lines.push(`session started on ${robotLabel(run.robot, run.key)}: duck ${run.duck.name}, verbs ${allowed.join(', ')}; budget ${plural(b.steps, 'step')}, ${plural(b.llm_calls, 'call')}, ${b.seconds} s · transcript ${run.runId}`);
  }
  const refusal = find(events, 'refused');
  const gate = find(events, 'gate');
  const result = find(events, 'verb_result');
  if (refusal !== undefined) {
    const offList = /not in this duck's verbs|^unknown verb/.test(refusal.reason) ? ` (this session's verbs: ${allowed.join(', ')})` : '';
    lines.push(`refused — ${refusal.name}: ${refusal.reason}${offList}; nothing moved`);
  } else if (gate !== undefined && !gate.allowed) {
    lines.push(`denied — ${gate.label}: ${DENIED[gate.how]}; nothing moved`);
  }
  if (result !== undefined) lines.push(`${result.step !== undefined ? `step ${result.step}: ` : ''}${result.label} — ${result.ok ? 'ok' : 'failed'}: ${result.summary}`);
  if (step !== undefined) lines.push(`sensors: ${step.observation.summary}`, step.budget);
  const declared = ended !== undefined && refusal === undefined && (ended.outcome.status === 'success' || ended.outcome.status === 'failure');
  if (ended !== undefined) {
    if (result === undefined && !declared && refusal === undefined) lines.push(`${name} was not carried out; nothing moved`);
    lines.push(`the session ended: ${ended.outcome.status} — ${ended.outcome.reason} · ${plural(ended.steps, 'step')}, ${plural(ended.llmCalls, 'call')} · transcript ${ended.runId}; the next robot_verb starts a new session`);
  }
  const structured = {
    robot: run.robot,
    runId: run.runId,
    verb: name,
    ...(result !== undefined ? { result: { ...(result.step !== undefined ? { step: result.step } : {}), ok: result.ok, summary: result.summary } } : {}),
    ...(refusal !== undefined ? { refused: refusal.reason } : {}),
    ...(gate !== undefined ? { gate: { allowed: gate.allowed, how: gate.how } } : {}),
    ...(step !== undefined ? { observation: { ...step.observation.data }, budget: step.budget } : {}),
    ...(ended !== undefined ? { ended: { outcome: ended.outcome.status, reason: ended.outcome.reason } } : {}),
  };
  return result !== undefined || declared ? said(lines.join('\n'), structured) : refused(lines.join('\n'), structured);
}

export const robotVerb: InstallTool = (server, ctx) => {
  const verbs = ctx.sessionVerbs;
  const about = verbs.map((v) => `${v}: ${everyVerb.get(v)?.description ?? ''}`).join(' ');
  server.registerTool(
    'robot_verb',
    {
      title: 'Call one verb on the robot',
      description:
        "Calls one verb on the robot, under this server's duck: its allowlist, the verb's argument schema, its budgets and its confirmation gates, as in a run. " +
        'A verb outside it, bad arguments, or a gate nobody confirms is refused and nothing moves. The first call starts a session (a run you pilot, with ' +
        'its own transcript and budgets); declare_success or declare_failure ends it, as does a spent budget, and the next call starts a new one. ' +
        `Verbs here: ${about}`,
      inputSchema: inputFor(verbs),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ robot, verb, args }, extra) =>
      answering(async () => {
        // A note from the client is robot_remember's: saved as the assistant's, never as a pilot's; a look into memory is robot_recall's.
        if (verb === 'recall') return refused("recall is robot_recall's job here: call robot_recall");
        if (everyVerb.get(verb)?.kind === 'memory') return refused(`${verb} is robot_remember's job here: call robot_remember; nothing was saved`);
        const status = await ctx.robots.pick(robot);
        return answer(verb, await ctx.sessions.verb(status, verb, args ?? {}, extra.requestId, extra.signal));
      }),
  );
};
