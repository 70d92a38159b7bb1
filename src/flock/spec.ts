/**
 * What a flock duck's `flock:` section says, as the duck parser reads it: the members (a fleet
 * robot, a body key, or a robot of another Pi's `quackd serve` written `remote:BASE/ROBOT`), the
 * coordinator's plan, and the flock's own clock. Pure: the parser imports it, so nothing here may
 * load a body, a broker or a pilot.
 */
import { z } from 'zod';
import { numberSetting } from '../config/number-setting.js';

export const PLANS = ['first-finder-kicks'] as const;
export type PlanName = (typeof PLANS)[number];

/** The verbs only the coordinator may allow, per plan: a kick is the finder's alone. */
export const PLAN_GATES: Readonly<Record<PlanName, readonly string[]>> = { 'first-finder-kicks': ['kick'] };

/** What the others run once the plan stops them: a starter every quackd has, so a remote one can run it by name. */
export const QUACK_DUCK = 'hello-world';

export type MemberRef =
  /** A fleet name (`kitchen-duck`) or a body key (`microduck:sim2d`), run in this process. */
  | { readonly kind: 'local'; readonly robot: string }
  /** `remote:quackd-hall/hall-duck`: robot `hall-duck` of the serve whose base topic is `quackd-hall`. */
  | { readonly kind: 'remote'; readonly base?: string; readonly robot: string };

export interface FlockMember {
  /** As the flock names it: what it was written as, with `#2`, `#3` … for a body key written twice. */
  readonly name: string;
  readonly ref: MemberRef;
  /** 1-based line in the duck file, for error messages. */
  readonly line: number;
}

export interface FlockSpec {
  readonly members: readonly FlockMember[];
  readonly plan: PlanName;
  /** The flock's own wall clock in seconds, when the duck sets one. */
  readonly seconds?: number;
  /** The duck's own `confirm:` (a person's yes), before the plan's gates were added to it. */
  readonly personConfirm: readonly string[];
  /** The plan's verbs: every use of them is the coordinator's to allow. */
  readonly gated: readonly string[];
  readonly line: number;
}

const ROBOT = /^[a-z][a-z0-9_-]{0,31}$/;
const KEY = /^[a-z0-9-]+:[a-z0-9-]+$/;
/** `remote:ROBOT` or `remote:BASE/ROBOT`; BASE may have levels of its own (no wildcards, no empty level). */
const REMOTE = /^remote:(?:([^#+/\s\0]+(?:\/[^#+/\s\0]+)*)\/)?([^#+/\s\0]{1,64})$/;

export function memberRef(text: string): MemberRef | undefined {
  const remote = REMOTE.exec(text);
  if (remote !== null) return { kind: 'remote', robot: remote[2] ?? '', ...(remote[1] !== undefined ? { base: remote[1] } : {}) };
  if (text.startsWith('remote:')) return undefined;
  return ROBOT.test(text) || KEY.test(text) ? { kind: 'local', robot: text } : undefined;
}

export const flockSchema = z
  .object({
    members: z
      .array(z.string().refine((s) => memberRef(s) !== undefined, { message: 'expected a fleet robot (kitchen-duck), a body key (microduck:sim2d) or remote:BASE/ROBOT (remote:quackd-hall/hall-duck)' }))
      .min(1, 'list at least one member')
      .max(16, 'at most 16 members'),
    plan: z.string().refine((p) => (PLANS as readonly string[]).includes(p), { message: `expected a plan: ${PLANS.join(', ')}` }),
    seconds: z.optional(numberSetting({ example: 60, min: 1, max: 86_400 })),
  })
  .strict();

/** The members as the flock names them: a body key written n times becomes `key#1` … `key#n`. */
export function memberNames(written: readonly string[]): string[] {
  const count = (s: string) => written.filter((w) => w === s).length;
  const seen = new Map<string, number>();
  return written.map((w) => {
    if (count(w) === 1 || !KEY.test(w)) return w;
    const n = (seen.get(w) ?? 0) + 1;
    seen.set(w, n);
    return `${w}#${n}`;
  });
}

/** Where a flock's problem is written: a member (its index), the plan line, or the section. */
export type FlockProblem = { readonly message: string; readonly member?: number; readonly field?: 'plan' };

/**
 * The checked flock of a duck's front matter, or the first thing wrong with it. `isHeld(key)`
 * says whether a body key is one robot (a serial link) rather than a world opened per run: such
 * a key written twice would be one robot asked to run twice at once.
 */
export function buildFlock(
  section: z.infer<typeof flockSchema>,
  duck: { readonly verbs: readonly string[]; readonly confirm: readonly string[] },
  lines: { readonly section: number; readonly members: readonly number[] },
  bodies: { readonly known: (key: string) => boolean; readonly isHeld: (key: string) => boolean; readonly suggest: (key: string) => string },
): FlockSpec | FlockProblem {
  const names = memberNames(section.members);
  for (const [i, written] of section.members.entries()) {
    const ref = memberRef(written);
    if (ref?.kind === 'local' && KEY.test(written)) {
      if (!bodies.known(written)) return { member: i, message: `unknown body "${written}"${bodies.suggest(written)}` };
      if (bodies.isHeld(written) && section.members.indexOf(written) !== i) return { member: i, message: `${written} is written twice, but it is one robot: name each one under robots: in config.yaml` };
    } else if (section.members.indexOf(written) !== i) {
      return { member: i, message: `"${written}" is written twice` };
    }
  }
  const plan = section.plan as PlanName;
  const gated = PLAN_GATES[plan];
  const missing = gated.find((v) => !duck.verbs.includes(v));
  if (missing !== undefined) return { field: 'plan', message: `${plan} leaves ${missing} to the coordinator, but ${missing} is not in this duck's verbs` };
  const members = names.flatMap((name, i): FlockMember[] => {
    const ref = memberRef(section.members[i] ?? '');
    return ref === undefined ? [] : [{ name, ref, line: lines.members[i] ?? lines.section }];
  });
  return {
    members,
    plan,
    ...(section.seconds !== undefined ? { seconds: section.seconds } : {}),
    personConfirm: duck.confirm,
    gated,
    line: lines.section,
  };
}
