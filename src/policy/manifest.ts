/**
 * The Microduck policy manifest, schema 2: the `manifest.json` beside a `policy.onnx`.
 *
 * Field names and meanings follow pollen-robotics/microduck `docs/policy-manifest.md` (schema 2,
 * the contract robotd reads): `schema_version`, `model_api`, `obs_len`, `action_len`,
 * `robot.{model,hw_rev,servos,control_hz}`, `name`, `description`, `kind`, `duration_s`, `chain`,
 * `action_scale`, `unwind_s`, `ramp_s`, `mode`, `slot`, `entry_pose`,
 * `command.{encoding,idle,period_s,end_phase,twist,head,body}`. As there, every field is optional
 * and a policy is refused only on a claim that is present and wrong; fields quackd does not read
 * (`training`, `eval`, …) are accepted and dropped. Two names differ from a first guess and the
 * published ones win: the version is `schema_version` (not `schema`, and nothing gates on it),
 * and `kind` says who ends the policy (`episodic` | `perpetual` | `scripted`); which skill it is
 * (walk, stand, kick_left …) is `slot`.
 *
 * quackd adds fields of its own; the published contract has nothing for them (searched: the
 * manifest doc, robotd's design and its obs.rs):
 * - `obs_layout`: which observation builder (layouts.ts); absent, it follows from obs_len.
 * - `command.ranges`: `{ vx, vy, vyaw: [min, max] }`, the command the policy was made for
 *   (robotd keeps velocity limits in its own config, not in the manifest).
 * - `command.nominal`: `{ vx?, vy?, vyaw? }`, the command a verb sends unless asked otherwise
 *   (policy/command.ts); inside `command.ranges` where both give an axis.
 * - `command.made_good`: `{ vx?, vyaw? }`, the fraction of its command the policy was measured to
 *   make good (0.44: it walks 0.13 m/s when sent 0.3): a body with no odometry times a walk by it.
 * - `sim`: `{ timestep, decimation }`, the physics step (s) and steps per policy tick it was
 *   trained at (the training config's sim dt and decimation): a twin that steps otherwise warns.
 * - `home`: the 14 joint angles the observation and the action are relative to; absent, the
 *   layout's (alpha for 61 inputs, legacy otherwise).
 * - `joints`: the 14 joint names in policy order, for a model whose joints are named otherwise.
 * - For the Open Duck Mini v2's layout (open-duck-mini-v2), what its reference runtime takes from
 *   elsewhere: `command.phase_steps`, the ticks in one cycle of the reference motion
 *   (`nb_steps_in_period`, int(period × fps) of its polynomial_coefficients.pkl); `command.phase_offset`,
 *   added to each tick's phase step (duck_config.json's `phase_frequency_factor_offset`, 0 when absent);
 *   `velocity_scale`, what joint velocities are multiplied by (the reference's `dof_vel_scale`, 0.05).
 */
import * as z from '../zod-mini.js';
import { printable } from '../text/printable.js';
import { PolicyError } from './errors.js';
import { OBS_LAYOUTS, OBS_LEN, defaultLayout, type ObsLayout } from './layouts.js';
import { ALPHA_HOME, LEGACY_HOME, MICRODUCK_ACTIONS, MICRODUCK_CONTROL_HZ, MICRODUCK_JOINTS, OPEN_DUCK_MINI_V2_HOME } from './microduck.js';

/** The daemon API a policy may need: quackd runs feed-forward exports (API 1), not the recurrent ones (API 2). */
export const MODEL_API = 1;

const positive = z.number().check(z.positive());
const positiveWhole = z.int().check(z.positive());
const fraction = z.number().check(z.positive(), z.maximum(2));
const range = z.tuple([z.number(), z.number()]).check(z.refine(([lo, hi]) => lo <= hi, { message: 'min (the first) is above max (the second)' }));
const joints14 = <T extends z.core.SomeType>(item: T) => z.array(item).check(z.length(MICRODUCK_ACTIONS));

export const RobotSchema = z.object({
  model: z.optional(z.string()),
  hw_rev: z.optional(z.int()),
  servos: z.optional(z.string()),
  control_hz: z.optional(positive),
});

/** The command axes a manifest may bound (`ranges`) and name a speed for (`nominal`). */
export const RangesSchema = z.strictObject({ vx: z.optional(range), vy: z.optional(range), vyaw: z.optional(range) });
export const NominalSchema = z.strictObject({ vx: z.optional(z.number()), vy: z.optional(z.number()), vyaw: z.optional(z.number()) });

export const CommandSchema = z.object({
  encoding: z.optional(z.enum(['constant', 'phase', 'posture_flag'])),
  idle: z.optional(z.tuple([z.number(), z.number(), z.number()])),
  period_s: z.optional(positive),
  end_phase: z.optional(positive),
  twist: z.optional(z.string()),
  head: z.optional(z.string()),
  body: z.optional(z.string()),
  // quackd's own: strict, so a misspelt axis is refused rather than silently unlimited.
  ranges: z.optional(RangesSchema),
  nominal: z.optional(NominalSchema),
  made_good: z.optional(z.strictObject({ vx: z.optional(fraction), vyaw: z.optional(fraction) })),
  phase_steps: z.optional(positiveWhole),
  phase_offset: z.optional(z.number()),
});

const SimSchema = z.strictObject({ timestep: z.optional(positive), decimation: z.optional(positiveWhole) });

export const ManifestFileSchema = z.object({
  schema_version: z.optional(z.int()),
  model_api: z.optional(positiveWhole),
  obs_len: z.optional(positiveWhole),
  action_len: z.optional(positiveWhole),
  robot: z.optional(RobotSchema),
  name: z.optional(z.string()),
  description: z.optional(z.string()),
  kind: z.optional(z.enum(['episodic', 'perpetual', 'scripted'])),
  duration_s: z.optional(positive),
  chain: z.optional(z.boolean()),
  action_scale: z.optional(positive),
  unwind_s: z.optional(positive),
  ramp_s: z.optional(positive),
  mode: z.optional(z.string()),
  slot: z.optional(z.string()),
  entry_pose: z.optional(z.string()),
  command: z.optional(CommandSchema),
  obs_layout: z.optional(z.enum(OBS_LAYOUTS)),
  home: z.optional(joints14(z.number())),
  joints: z.optional(joints14(z.string().check(z.minLength(1)))),
  sim: z.optional(SimSchema),
  velocity_scale: z.optional(positive),
});

/** A manifest as written: every field optional. */
export type ManifestFile = z.infer<typeof ManifestFileSchema>;

/** A manifest checked against its model, with what the loop needs filled in. */
export type PolicyManifest = Omit<ManifestFile, 'obs_len' | 'action_len' | 'obs_layout' | 'home' | 'joints'> & {
  /** The manifest.json it was read from (for messages). */
  readonly file: string;
  readonly obs_len: number;
  readonly action_len: number;
  readonly obs_layout: ObsLayout;
  readonly home: readonly number[];
  readonly joints: readonly string[];
};

function fieldName(path: readonly PropertyKey[]): string {
  return path.reduce<string>((acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc === '' ? String(key) : `${acc}.${String(key)}`), '');
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${printable(k)}"`).join(', ')}`;
  if (issue.code === 'invalid_type') return `expected ${issue.expected === 'int' ? 'a whole number' : issue.expected === 'array' ? 'a list' : `${/^[aeiou]/.test(issue.expected) ? 'an' : 'a'} ${issue.expected}`}`;
  // Every list in the manifest has a fixed length (tuples, 14 joints).
  if ((issue.code === 'too_small' || issue.code === 'too_big') && issue.origin === 'array') return `expected ${String(issue.code === 'too_small' ? issue.minimum : issue.maximum)} values`;
  if ((issue.code === 'too_small' || issue.code === 'too_big') && issue.origin === 'number') {
    const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
    return `expected a number ${issue.code === 'too_small' ? '>' : '<'}${issue.inclusive === true ? '=' : ''} ${String(bound)}`;
  }
  if (issue.code === 'invalid_value') return `expected one of ${issue.values.map((v) => String(v)).join(', ')}`;
  return issue.message;
}

/** The home pose a manifest means: its own `home`, else its layout's (alpha for 61 inputs, the Open Duck Mini v2's for 101, legacy otherwise). */
export function manifestHome(m: ManifestFile, layout: ObsLayout | undefined): readonly number[] {
  return m.home ?? (layout === 'microduck-61' ? ALPHA_HOME : layout === 'open-duck-mini-v2' ? OPEN_DUCK_MINI_V2_HOME : LEGACY_HOME);
}

/**
 * The action scale a manifest means: its own `action_scale`, else the Open Duck Mini v2 reference's
 * 0.25 for its layout, else robotd's defaults (1.0 standing, 0.9 otherwise).
 */
export function actionScale(m: Pick<PolicyManifest, 'action_scale' | 'obs_layout' | 'slot'>): number {
  return m.action_scale ?? (m.obs_layout === 'open-duck-mini-v2' ? 0.25 : m.slot === 'stand' ? 1 : 0.9);
}

/** Reads manifest.json's text: JSON, then the schema; the first problem is the one line reported. */
export function parseManifest(text: string, file: string): ManifestFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0] ?? '' : String(err);
    throw new PolicyError('manifest', file, `${file}: not valid JSON (${printable(why)})`);
  }
  if (typeof raw === 'object' && raw !== null && 'policies' in raw) {
    throw new PolicyError('manifest', file, `${file}: is a policy set (policies[]), not one policy: point at a folder with one policy.onnx and its manifest.json`);
  }
  const parsed = ManifestFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue === undefined ? '' : fieldName(issue.path);
    throw new PolicyError('manifest', file, `${file}: ${field === '' ? '' : `${field}: `}${issue === undefined ? 'invalid' : describeIssue(issue)}`);
  }
  const outside = nominalOutsideRanges(parsed.data);
  if (outside !== undefined) throw new PolicyError('manifest', file, `${file}: ${outside}`);
  return parsed.data;
}

const AXES = ['vx', 'vy', 'vyaw'] as const;

/** `command.nominal.vx: 0.6 is outside command.ranges.vx [-0.5, 0.5]`, or undefined. */
function nominalOutsideRanges(m: ManifestFile): string | undefined {
  for (const axis of AXES) {
    const v = m.command?.nominal?.[axis];
    const r = m.command?.ranges?.[axis];
    if (v !== undefined && r !== undefined && (v < r[0] || v > r[1])) return `command.nominal.${axis}: ${v} is outside command.ranges.${axis} [${r[0]}, ${r[1]}]`;
  }
  return undefined;
}

/** What the ONNX file itself says: the width of its one input and its one output, where fixed. */
export interface ModelShape {
  readonly inputs?: number;
  readonly outputs?: number;
}

export interface ResolveOptions {
  readonly manifestFile: string;
  readonly modelFile: string;
  /** The body's robot model; a manifest that names another is refused. */
  readonly robot?: string;
}

/**
 * Checks a parsed manifest against the robot and the model's shapes and fills in what it leaves
 * out (obs_len and action_len from the model, the layout from obs_len, the home pose from the
 * layout). Every refusal is one line naming the file and the field.
 */
export function resolveManifest(m: ManifestFile, shape: ModelShape, opts: ResolveOptions): PolicyManifest {
  const { manifestFile: file, modelFile: model } = opts;
  const robot = opts.robot ?? 'microduck';
  const name = 'manifest.json';
  if (m.model_api !== undefined && m.model_api > MODEL_API) {
    throw new PolicyError('robot', file, `${file}: model_api ${m.model_api} needs a newer quackd (this one runs feed-forward policies, model_api ${MODEL_API})`);
  }
  if (m.robot?.model !== undefined && m.robot.model !== robot) {
    throw new PolicyError('robot', file, `${file}: robot.model is "${printable(m.robot.model)}" but this body is a ${robot}`);
  }
  // A policy stepped at another rate than it was trained at moves at the wrong speed, and its gait's phase drifts.
  if (m.robot?.control_hz !== undefined && m.robot.control_hz !== MICRODUCK_CONTROL_HZ) {
    throw new PolicyError('robot', file, `${file}: robot.control_hz is ${m.robot.control_hz} but quackd's control loop runs a ${robot} at ${MICRODUCK_CONTROL_HZ} Hz: a policy runs at the rate it was trained at (train or export it at ${MICRODUCK_CONTROL_HZ} Hz)`);
  }
  if (m.action_len !== undefined && m.action_len !== MICRODUCK_ACTIONS) {
    throw new PolicyError('robot', file, `${file}: action_len is ${m.action_len} but a ${robot} has ${MICRODUCK_ACTIONS} policy joints`);
  }
  if (shape.inputs !== undefined && m.obs_len !== undefined && shape.inputs !== m.obs_len) {
    throw new PolicyError('mismatch', model, `${model} takes ${shape.inputs} inputs but ${name} says obs_len ${m.obs_len}`);
  }
  if (shape.outputs !== undefined && shape.outputs !== (m.action_len ?? MICRODUCK_ACTIONS)) {
    const claim = m.action_len !== undefined ? `${name} says action_len ${m.action_len}` : `a ${robot} has ${MICRODUCK_ACTIONS} policy joints`;
    throw new PolicyError('mismatch', model, `${model} gives ${shape.outputs} actions but ${claim}`);
  }
  const obsLen = m.obs_len ?? shape.inputs;
  if (obsLen === undefined) {
    throw new PolicyError('mismatch', file, `${file}: no obs_len, and ${model} does not fix its input width: add obs_len`);
  }
  const layout = m.obs_layout ?? defaultLayout(obsLen);
  if (layout === undefined) {
    throw new PolicyError('mismatch', file, `${file}: obs_len ${obsLen} is no published layout (51, 61 or 101): add obs_layout (${OBS_LAYOUTS.join(', ')})`);
  }
  if (OBS_LEN[layout] !== obsLen) {
    const source = m.obs_len !== undefined ? `obs_len is ${obsLen}` : `${model} takes ${obsLen}`;
    throw new PolicyError('mismatch', file, `${file}: obs_layout ${layout} has ${OBS_LEN[layout]} inputs but ${source}`);
  }
  if (layout === 'quackd-gait-1' && m.command?.period_s === undefined) {
    throw new PolicyError('manifest', file, `${file}: command.period_s: obs_layout quackd-gait-1 needs the phase cycle in seconds`);
  }
  if (layout === 'open-duck-mini-v2' && m.command?.phase_steps === undefined) {
    throw new PolicyError('manifest', file, `${file}: command.phase_steps: obs_layout open-duck-mini-v2 needs the ticks in one cycle of its reference motion (nb_steps_in_period: int(period × fps) of the polynomial_coefficients.pkl it was trained with)`);
  }
  return {
    ...m,
    file,
    obs_len: obsLen,
    action_len: m.action_len ?? MICRODUCK_ACTIONS,
    obs_layout: layout,
    home: manifestHome(m, layout),
    joints: m.joints ?? MICRODUCK_JOINTS,
  };
}
