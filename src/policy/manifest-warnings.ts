/**
 * Manifest keys nobody reads, named: a manifest is not refused for a field quackd does not know
 * (robotd's manifests carry fields quackd has no use for, and the next schema may add more), but
 * a misspelt one (`home_pose`, `command.vx`) would otherwise be dropped in silence and the policy
 * run without it. Each unknown key is one warning with the closest known one. robotd's fields
 * that quackd merely does not use (pollen-robotics/microduck docs/policy-manifest.md: `training`,
 * `eval`, a set entry's `file`, `command.sit|stand|slot`) are known and never warned about.
 */
import { isRecord } from '../is-record.js';
import { closest } from '../text/suggest.js';
import { CommandSchema, ManifestFileSchema, NominalSchema, RangesSchema, RobotSchema } from './manifest.js';

/** Published fields quackd does not read: accepted in silence. */
const ROBOTD_ONLY = { top: ['training', 'eval', 'file'], command: ['sit', 'stand', 'slot'], robot: [] as string[] } as const;

const keysOf = (o: { readonly shape: Readonly<Record<string, unknown>> }): string[] => Object.keys(o.shape);
/** The axes a command names, for `command.vx` → `command.nominal.vx`. */
const commandAxes = ([['nominal', NominalSchema], ['ranges', RangesSchema]] as const).flatMap(([block, schema]) => keysOf(schema).map((axis) => `${block}.${axis}`));

const LEVELS = {
  top: { known: [...keysOf(ManifestFileSchema), ...ROBOTD_ONLY.top], deeper: [] as string[] },
  command: { known: [...keysOf(CommandSchema), ...ROBOTD_ONLY.command], deeper: commandAxes },
  robot: { known: [...keysOf(RobotSchema), ...ROBOTD_ONLY.robot], deeper: [] as string[] },
} as const;

/**
 * The known key a person most likely meant: one whose name is inside theirs or theirs inside it
 * (`home_pose` → `home`, `vx` → `nominal.vx`), else the nearest by spelling.
 */
function meant(key: string, candidates: readonly string[]): string | undefined {
  const k = key.toLowerCase();
  // The first in the candidates' order: `command.vx` → `nominal.vx` (a command) before `ranges.vx`.
  return candidates.find((c) => c.length >= 2 && (k.includes(c.toLowerCase()) || c.toLowerCase().includes(k))) ?? closest(key, candidates);
}

function unknownAt(level: keyof typeof LEVELS, value: unknown, prefix: string): string[] {
  if (!isRecord(value)) return [];
  const { known, deeper } = LEVELS[level];
  return Object.keys(value)
    .filter((key) => !known.includes(key))
    .map((key) => {
      const guess = meant(key, [...known, ...deeper]);
      return `${prefix}${key}: unknown field, ignored${guess !== undefined ? ` (did you mean ${prefix}${guess}?)` : ''}`;
    });
}

/** One line per key no reader knows, top level and inside `command` and `robot`; [] for text that is not a JSON object. */
export function manifestWarnings(text: string): string[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return [];
  }
  if (!isRecord(raw)) return [];
  return [...unknownAt('top', raw, ''), ...unknownAt('robot', raw['robot'], 'robot.'), ...unknownAt('command', raw['command'], 'command.')];
}
