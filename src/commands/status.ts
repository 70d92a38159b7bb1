/** `quackd status [--json]`: what the running service is doing, asked over its control socket. */
import { parseFlags } from '../cli/args.js';
import { EXIT, UsageError } from '../cli/errors.js';
import { fitLine } from '../cli/fit.js';
import type { Invocation } from '../cli/invocation.js';
import { printable, type Output } from '../cli/output.js';
import type { RobotStatus } from '../service/api.js';
import { bodyFacts, loopRateText } from '../runtime/robot-status.js';
import { askService, noService, replyError } from '../service/socket/client.js';
import type { StatusReply } from '../service/socket/protocol.js';
import { plural } from '../text/plural.js';
import type { Command } from './command.js';
import { uptime } from '../text/uptime.js';

const help = `usage: quackd status [--json]

Asks the running quackd serve (over its control socket) what it is doing: each robot's activity,
the run under way and its step, a gate waiting for a person, the last outcome, the control loop's
rate, the battery and link of a serial robot (of a daemon's robot: whether its daemon answers,
and why not), memory counts; the front doors (the MQTT broker's connection); the service's pid,
uptime and config file. Without a running service it says so on stderr and exits 3.

examples:
  quackd status
  quackd status --json | jq '.robots[] | {robot, activity}'`;

/** Local time of day for people: `14:03:07`. */
export function clock(iso: string): string {
  const d = new Date(iso);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

const INDENT = 10;

function robotLines(io: Output, r: StatusReply['robots'][number], width: number): void {
  // Padded before it is painted: colour codes take no room on screen.
  const paint = (a: RobotStatus['activity']): ((x: string) => string) => (a === 'running' ? io.green : a === 'idle' ? (x) => x : io.yellow);
  io.line(fitLine(`${io.bold(printable(r.robot).padEnd(width))}  ${paint(r.activity)(r.activity.padEnd(8))}  ${io.dim(r.key)}`, io.width(), width + 2));
  const row = (label: string, text: string): void => io.line(fitLine(`${' '.repeat(INDENT)}${io.dim(label.padEnd(10))} ${text}`, io.width(), INDENT + 11));
  if (r.run !== undefined) row('run', `${printable(r.run.duck)} · step ${r.run.step} · since ${clock(r.run.startedAt)} · ${r.run.runId}`);
  if (r.gate !== undefined) row('gate', io.yellow(`waiting since ${clock(r.gate.since)}: ${printable(r.gate.question.trim())} — confirm?`));
  if (r.lastOutcome !== undefined) row('last run', `${r.lastOutcome.status} — ${printable(r.lastOutcome.reason)} · ${printable(r.lastOutcome.duck)} at ${clock(r.lastOutcome.endedAt)}`);
  if (r.fell !== undefined) row('fell', io.yellow(`at ${clock(r.fell.at)}, tilted ${r.fell.tilt_deg}°: it stays down until stood up`));
  if (r.loop !== undefined) row('loop', `${loopRateText(r.loop)} · ${r.loop.missed} missed · ${r.loop.overruns} overruns · ${r.loop.state}`);
  const body = bodyFacts(r);
  if (body.length > 0) row('body', body.join(' · '));
  if (r.away !== undefined) row('away', io.yellow(printable(r.away)));
  if (r.memory !== undefined) row('memory', `${plural(r.memory.notes, 'note')}, ${plural(r.memory.episodes, 'earlier run')}`);
}

export function printStatus(io: Output, status: StatusReply): void {
  const s = status.service;
  io.line(fitLine(`quackd serve ${s.version} · pid ${s.pid} · up ${uptime(s.uptimeS)} · config ${s.config}`, io.width(), 2));
  const width = Math.max(8, ...status.robots.map((r) => r.robot.length));
  if (status.robots.length === 0) io.line(io.dim('no robots in the config file (robots:); runs name a body key'));
  for (const r of status.robots) robotLines(io, r, width);
  for (const d of status.doors) io.line(fitLine(`${printable(d.label).padEnd(width)}  ${d.ok ? d.value : io.yellow(d.value)}`, io.width(), width + 2));
}

export const statusCommand: Command = {
  name: 'status',
  help,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('status', argv, { json: { type: 'boolean' } });
    if (positionals.length > 0) throw new UsageError('status: takes no arguments', "'quackd status --json' for scripts");
    const reply = await askService(env, { op: 'status' });
    if (reply === undefined) throw noService(env);
    if (reply.type === 'error') throw replyError(reply);
    if (reply.type !== 'status') throw replyError({ type: 'error', kind: 'runtime', message: `quackd serve answered ${reply.type} to status` });
    if (flags.json === true) io.line(JSON.stringify(reply.status));
    else printStatus(io, reply.status);
    return EXIT.ok;
  },
};
