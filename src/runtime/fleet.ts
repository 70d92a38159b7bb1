/**
 * The fleet: named robots, each an `adapter:backend` body with its settings. Read from the config
 * file's `robots:` section, checked by each backend's own settings schema, and filled in by flags
 * (--port, --baud) through the same schema, so a run and a service see one truth. Memory stays
 * keyed by body, never by a robot's name.
 */
import { z } from 'zod';
import type { BodyKey } from '../bodies/body.js';
import { findBody, listBodies, type BodyEntry } from '../bodies/index.js';
import { didYouMean } from '../text/suggest.js';
import { keysAt } from '../config/schema-keys.js';
import { notANumber } from '../config/number-setting.js';
import { valueAt } from '../config/value-at.js';

export const ROBOT_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
const ROBOT_NAME_RULE = 'a robot name is a lower case letter, then lower case letters, digits, - or _, at most 32 in all (e.g. kitchen-duck)';

/** Where a robot's setting came from, for `quackd config check`. */
export type SettingSource = 'file' | 'flag';

export interface Robot {
  /** The fleet name (`kitchen-duck`), or the body key itself for a robot not in the fleet. */
  readonly name: string;
  readonly key: BodyKey;
  readonly entry: BodyEntry;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly sources: Readonly<Record<string, SettingSource>>;
}

/** One robot as the config file writes it: `{ body: adapter:backend, ...settings }`. */
const robotSchema = z.object({ body: z.string().min(1) }).catchall(z.unknown());

/** The `robots:` section; each robot's settings checked by its backend's schema, issues on their lines. */
export const RobotsSectionSchema = z.record(z.string(), robotSchema).superRefine((robots, ctx) => {
  for (const [name, { body, ...settings }] of Object.entries(robots)) {
    // Checked here, not by the record's key schema: zod says only "Invalid key in record" of a key.
    if (!ROBOT_NAME.test(name)) {
      ctx.addIssue({ code: 'custom', path: [name], message: ROBOT_NAME_RULE });
      continue;
    }
    const entry = findBody(body);
    if (entry === undefined) {
      ctx.addIssue({ code: 'custom', path: [name, 'body'], message: `unknown body "${body}"${didYouMean(body, listBodies().map((b) => b.key))}` });
      continue;
    }
    const parsed = entry.settings.safeParse(settings);
    for (const issue of parsed.success ? [] : parsed.error.issues) {
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
      const field = String(issue.path[0] ?? '');
      // A missing setting may come from a flag (--port); a run without it is refused then.
      if (keys.length === 0 && settings[field] === undefined) continue;
      ctx.addIssue({ code: 'custom', path: [name, ...issue.path.map(String), ...keys.slice(0, 1)], message: keys.length > 0 ? unknownKey(entry, issue.path, keys[0] ?? '') : (notANumber(issue, valueAt(settings, issue.path)) ?? issue.message) });
    }
  }
});

/**
 * A key the robot's settings do not take: at the top a setting of the body's; deeper (a row of a
 * servo duck's `joints:`) a key of that row, with the keys it does take to suggest from.
 */
function unknownKey(entry: BodyEntry, path: readonly PropertyKey[], key: string): string {
  if (path.length === 0) return `${entry.key} takes no setting "${key}"${didYouMean(key, ['body', ...keysAt(entry.settings, [])])}`;
  const known = keysAt(entry.settings, path);
  const hint = didYouMean(key, known) || (known.length > 0 ? ` (a row takes ${known.join(', ')})` : '');
  return `unknown key "${key}"${hint}`;
}

export type RobotsSection = z.infer<typeof RobotsSectionSchema>;

/** A name or a key that is neither in the fleet nor a body. */
export class UnknownRobot extends Error {
  override readonly name = 'UnknownRobot';
}

/**
 * A body key that two or more robots of the fleet have: which one it means is the person's to say.
 * An UnknownRobot, so every front door refuses it as it refuses a typo, in one line.
 */
export class AmbiguousRobot extends UnknownRobot {
  constructor(
    readonly key: BodyKey,
    readonly robots: readonly string[],
  ) {
    super(`${key} is the body of ${robots.length} robots of the fleet (${robots.join(', ')}): name one of them`);
  }
}

/** How a robot is shown wherever it is meant: `duck (microduck:mujoco)`, or the key alone for a robot not in the fleet. */
export function robotLabel(name: string, key: string): string {
  return name === key ? key : `${name} (${key})`;
}

/** Settings a flag gave that the robot's backend does not take, or a required one missing. */
export class RobotSettingsError extends Error {
  override readonly name = 'RobotSettingsError';
  constructor(
    message: string,
    readonly robot: string,
    /** The setting at fault (`port`), so the CLI can say which flag to pass. */
    readonly setting: string,
    readonly problem: 'missing' | 'not-taken' | 'invalid',
  ) {
    super(message);
  }
}

export class Fleet {
  private readonly robots: ReadonlyMap<string, Robot>;

  constructor(section: RobotsSection = {}) {
    const robots = new Map<string, Robot>();
    for (const [name, { body, ...settings }] of Object.entries(section)) {
      const entry = findBody(body);
      // The config loader refused unknown bodies already; this only keeps the types honest.
      if (entry === undefined) continue;
      robots.set(name, { name, key: entry.key, entry, settings, sources: Object.fromEntries(Object.keys(settings).map((k) => [k, 'file' as const])) });
    }
    this.robots = robots;
  }

  list(): Robot[] {
    return [...this.robots.values()];
  }

  /** The fleet's robot when it has one alone (a Pi with its duck configured): what health and memory use when --robot is left out (never a command that moves a motor). */
  sole(): Robot | undefined {
    return this.robots.size === 1 ? [...this.robots.values()][0] : undefined;
  }

  get(name: string): Robot | undefined {
    return this.robots.get(name);
  }

  /**
   * The robot a run names: a fleet name, or an `adapter:backend` key (the fleet member with that
   * body when there is exactly one, AmbiguousRobot when there are more, else a robot of that body
   * with no settings of its own), with `flags` laid over its settings and the whole checked by the
   * backend's schema.
   */
  resolve(nameOrKey: string, flags: Readonly<Record<string, unknown>> = {}): Robot {
    const base = this.robots.get(nameOrKey) ?? this.byKey(nameOrKey);
    if (base === undefined) {
      const known = [...this.robots.keys(), ...listBodies().map((b) => b.key)];
      throw new UnknownRobot(`unknown robot "${nameOrKey}"${didYouMean(nameOrKey, known)}`);
    }
    const settings = { ...base.settings, ...flags };
    const parsed = base.entry.settings.safeParse(settings);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const key = issue?.code === 'unrecognized_keys' ? (issue.keys[0] ?? '') : String(issue?.path[0] ?? '');
      const problem = issue?.code === 'unrecognized_keys' ? 'not-taken' : settings[key] === undefined ? 'missing' : 'invalid';
      const what = problem === 'not-taken' ? `${base.key} takes no setting "${key}"` : problem === 'missing' ? `${base.name} needs a ${key}` : `${key}: ${issue?.message ?? 'invalid'}`;
      throw new RobotSettingsError(what, base.name, key, problem);
    }
    const sources = { ...base.sources, ...Object.fromEntries(Object.keys(flags).map((k) => [k, 'flag' as const])) };
    return { ...base, settings: parsed.data, sources };
  }

  private byKey(key: string): Robot | undefined {
    const entry = findBody(key);
    if (entry === undefined) return undefined;
    const members = this.list().filter((r) => r.key === entry.key);
    if (members.length > 1) throw new AmbiguousRobot(entry.key, members.map((r) => r.name));
    return members[0] ?? { name: entry.key, key: entry.key, entry, settings: {}, sources: {} };
  }
}
