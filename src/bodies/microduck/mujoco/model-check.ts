/**
 * What `quackd health` checks of a microduck:mujoco robot's model before a run opens it: that the
 * model file exists and compiles with what the twin drives (14 policy joints on position servos,
 * a free trunk), and that every slot whose manifest names its joints names joints of that model,
 * in the order the twin drives them. The model is compiled as the body compiles it
 * (openMujocoPlant, on this thread), so health and a run refuse the same model in the same words.
 * Compiled rather than read as XML: includes, attached models, default classes and which servo
 * drives which joint are MuJoCo's to resolve, and a scan of the XML would pass a file MuJoCo
 * refuses. It costs MuJoCo's WebAssembly load and one compile (2.2 s on a loaded 2-core machine),
 * once per health run; quackd's own duck is not compiled (its joints are the Microduck's).
 */
import { MICRODUCK_JOINTS } from '../../../policy/microduck.js';
import { SLOTS, type Slot } from '../../../policy/slots.js';
import { AnatomyError } from './anatomy.js';
import { ModelFileError } from './model-files.js';
import { openMujocoPlant } from './plant.js';
import { mujocoSettings } from './settings.js';
import { readManifest } from '../../../policy/read-manifest.js';
import { userModel } from './user-model.js';
import { MujocoModelError } from './wasm.js';

export interface ModelVerdict {
  readonly ok: boolean;
  /** One line: what was found, or every problem, `;`-separated. */
  readonly detail: string;
}

/** The model as the twin would drive it: its policy joints in order, and which joint names it has at all. */
interface Driven {
  readonly what: string;
  readonly joints: readonly string[];
  readonly has: (joint: string) => boolean;
}

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');

/**
 * Where a slot's joints and the model's part: a missing name, or the first place the order
 * differs. A manifest that names no joints gives its 14 actions in policy order, which is the
 * twin's whatever the model calls its joints: nothing to compare.
 */
function slotProblem(slot: Slot, dir: string, driven: Driven): string | undefined {
  // A manifest that cannot be read is the policies line's to report, not this one's.
  const joints = readManifest(dir).manifest?.joints;
  if (joints === undefined) return undefined;
  const missing = joints.filter((j) => !driven.has(j));
  if (missing.length > 0) return `${slot}: the model has no joint${missing.length === 1 ? '' : 's'} ${quoted(missing)} (its manifest's joints)`;
  const at = joints.findIndex((j, i) => j !== driven.joints[i]);
  if (at < 0) return undefined;
  return `${slot}: its joint ${at + 1} is "${joints[at] ?? ''}" but the twin drives "${driven.joints[at] ?? ''}" there (the twin's order is the walk policy's)`;
}

/** The twin's joints: quackd's own duck's, or a user's model compiled as a run compiles it. */
async function drivenBy(settings: Readonly<Record<string, unknown>>, walkDir: string): Promise<{ driven: Driven; close(): void } | string> {
  const parsed = mujocoSettings.safeParse(settings);
  if (!parsed.success) return `${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'invalid settings'}`;
  const model = userModel(parsed.data, walkDir);
  if (model === undefined) {
    const own = new Set<string>(MICRODUCK_JOINTS);
    return { driven: { what: "quackd's own duck (no mjcf)", joints: MICRODUCK_JOINTS, has: (j) => own.has(j) }, close: () => undefined };
  }
  try {
    const plant = await openMujocoPlant({ seed: 1, model });
    const joints = plant.joints.map((j) => j.name);
    return { driven: { what: `${model.mjcf} (${joints.length} policy joints on servos)`, joints, has: (j) => plant.sim.id('joint', j) >= 0 }, close: () => plant.close() };
  } catch (err) {
    // Missing, not compiling, lacking a joint, a servo, a free trunk: the run's own one-line refusal.
    if (err instanceof ModelFileError || err instanceof MujocoModelError || err instanceof AnatomyError) return err.message;
    throw err;
  }
}

/** The model of a microduck:mujoco robot with these settings and policy folders, checked. */
export async function checkTwinModel(settings: Readonly<Record<string, unknown>>, policies: Readonly<Record<Slot, string>>): Promise<ModelVerdict> {
  const opened = await drivenBy(settings, policies.walk);
  if (typeof opened === 'string') return { ok: false, detail: opened };
  try {
    const problems = SLOTS.map((s) => slotProblem(s, policies[s], opened.driven)).filter((p) => p !== undefined);
    if (problems.length > 0) return { ok: false, detail: problems.join('; ') };
    return { ok: true, detail: `${opened.driven.what}: every slot's joints are its own, in its order` };
  } finally {
    opened.close();
  }
}
