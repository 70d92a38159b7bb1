/**
 * The journal: one info line for each thing a person may later ask about ("who moved the robot at
 * 14:02?"): a run started (by whom) and ended (how), a gate asked and answered (by whom), an
 * emergency stop (from where), a robot's policies loaded, torque switched. Each line starts with
 * what happened and names the robot, so `journalctl -u quackd | grep 'run started'` finds them;
 * the run id is a fact beside the words. The bus's events make the run and gate lines
 * (keepJournal); the others are said where they happen, with the helpers below.
 */
import { logger } from '../log.js';
import { printable } from '../text/printable.js';
import { readStepLine } from '../safety/gate-question.js';
import type { EventBus, RuntimeEvents } from './events.js';

const log = () => logger('runtime');

/** One line of text someone else wrote (a model's reason, a step's label), safe in a log line and not too long. */
function words(text: string, max = 160): string {
  const line = printable(text.split('\n')[0] ?? '');
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** How an answered gate was answered: `yes by mqtt client ha-den`, `no (nobody answered in time)`. */
function answer(e: RuntimeEvents['run:gate']): string {
  const said = e.allowed === true ? 'yes' : 'no';
  if (e.by !== undefined) return `${said} by ${e.by}`;
  const why: Readonly<Record<string, string>> = { yes: 'quackd run --yes', 'no-tty': 'nobody to ask', timeout: 'nobody answered in time', aborted: 'the run stopped first', unasked: 'the question could not be put to the person' };
  return `${said} (${why[e.how ?? ''] ?? e.how ?? 'unknown'})`;
}

/** Listens on `events` for what the journal says of runs and gates; returns the function that stops it. */
export function keepJournal(events: EventBus): () => void {
  const offs = [
    events.on('run:start', (e) => log().info({ run: e.runId }, `run started: ${e.duck} on ${e.robot} by ${e.by}`)),
    events.on('run:end', (e) => log().info({ run: e.runId }, `run ended: ${e.duck} on ${e.robot}: ${e.outcome.status} — ${words(e.outcome.reason)}`)),
    events.on('run:gate', (e) => {
      // The step line waiting (`  1  quack`) and the label answered (`quack`) say it the same way.
      const question = words(readStepLine(e.question).question.replace(/\s+/g, ' '));
      if (e.state === 'waiting') log().info({ run: e.runId }, `gate asked: ${e.robot}: ${question} — confirm?`);
      else log().info({ run: e.runId }, `gate answered: ${e.robot}: ${question} — ${answer(e)}`);
    }),
  ];
  return () => {
    for (const off of offs) off();
  };
}

/** `emergency stop: den by cli user ana (uid 1000)`; `robots` undefined: every robot. */
export function emergencyStopLine(robots: readonly string[] | undefined, by: string): void {
  log().info(`emergency stop: ${robots === undefined ? 'every robot' : robots.join(', ')} by ${by}`);
}

/** `torque on: den by mcp session 3f2a1b9c (claude-ai 0.1.0)`: torque as the firmware says it now is, and who asked. */
export function torqueLine(robot: string, on: boolean, by?: string): void {
  log().info(`torque ${on ? 'on' : 'off'}: ${robot}${by !== undefined ? ` by ${by}` : ''}`);
}

/**
 * `policies loaded: den (walk /home/pi/walking, the rest bundled)`: the folders a robot's body
 * opened with, each one not among the `bundled` folders named.
 */
export function policiesLine(robot: string, policies: Readonly<Record<string, string>>, bundled: ReadonlySet<string>): void {
  const own = Object.entries(policies).filter(([, dir]) => !bundled.has(dir));
  const named = own.map(([slot, dir]) => `${slot} ${words(dir, 120)}`);
  const rest = own.length === 0 ? 'all bundled' : own.length < Object.keys(policies).length ? 'the rest bundled' : undefined;
  log().info(`policies loaded: ${robot} (${[...named, ...(rest !== undefined ? [rest] : [])].join(', ')})`);
}
