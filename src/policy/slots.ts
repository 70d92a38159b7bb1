/**
 * A robot's policy set: which folder fills each slot (walk, turn, stand, kick_left, kick_right).
 * Three layers, the later winning: the bundled policies, the robot's `policies:` in config.yaml,
 * and what `quackd policy load` recorded in the data directory (`policy-slots.json`, per robot
 * name). Read afresh when a run leases the body, so a slot swapped between runs takes effect at
 * the next run, with no restart.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { InputError } from '../errors.js';
import { tmpBeside } from '../tmp-beside.js';
import { BUNDLED_SLOTS, bundledPolicyDir, type BundledSlot } from './bundled.js';

export const SLOTS = BUNDLED_SLOTS;
export type Slot = BundledSlot;

export function isSlot(name: string): name is Slot {
  return (SLOTS as readonly string[]).includes(name);
}

/** `policies:` in a robot's settings: slot → folder. */
export const PolicySlotsSchema = z.strictObject(Object.fromEntries(SLOTS.map((s) => [s, z.string().min(1).optional()])) as Record<Slot, z.ZodOptional<z.ZodString>>);
export type PolicySlots = z.infer<typeof PolicySlotsSchema>;

export interface SlotChoice {
  readonly dir: string;
  readonly from: 'bundled' | 'config' | 'policy load';
}

const OverlaySchema = z.record(z.string(), PolicySlotsSchema);

/** Where `quackd policy load` keeps its choices. */
export function overlayPath(dataDir: string): string {
  return join(dataDir, 'policy-slots.json');
}

function readOverlay(path: string): z.infer<typeof OverlaySchema> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new InputError(`${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new InputError(`${path}: not JSON`, "fix it, or delete it to go back to the config file's policies");
  }
  const parsed = OverlaySchema.safeParse(json);
  if (!parsed.success) throw new InputError(`${path}: ${parsed.error.issues[0]?.path.join('.') ?? ''}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

/** Every slot of `robot` and where its folder came from. */
export function resolveSlots(robot: string, configured: PolicySlots | undefined, dataDir: string): Readonly<Record<Slot, SlotChoice>> {
  const loaded = readOverlay(overlayPath(dataDir))[robot] ?? {};
  const choose = (slot: Slot): SlotChoice => {
    const fromLoad = loaded[slot];
    if (fromLoad !== undefined) return { dir: fromLoad, from: 'policy load' };
    const fromConfig = configured?.[slot];
    if (fromConfig !== undefined) return { dir: resolve(fromConfig), from: 'config' };
    return { dir: bundledPolicyDir(slot), from: 'bundled' };
  };
  return Object.fromEntries(SLOTS.map((s) => [s, choose(s)])) as Record<Slot, SlotChoice>;
}

/**
 * Records `dir` for `slot` of `robot` (undefined: back to the config file's or the bundled one).
 * Written whole to a temporary file and renamed, so a run reading it never sees half a file.
 */
export function recordSlot(dataDir: string, robot: string, slot: Slot, dir: string | undefined): void {
  const path = overlayPath(dataDir);
  const overlay = readOverlay(path);
  const mine = { ...(overlay[robot] ?? {}) };
  if (dir === undefined) delete mine[slot];
  else mine[slot] = resolve(dir);
  const next = { ...overlay, [robot]: mine };
  if (Object.keys(mine).length === 0) delete next[robot];
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = tmpBeside(path);
  writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

/** A robot's slots: its config's `policies:` (its body's schema checked them when the file was read) under what was loaded. */
export function robotSlots(robot: { readonly name: string; readonly settings: Readonly<Record<string, unknown>> }, dataDir: string): Readonly<Record<Slot, SlotChoice>> {
  const configured = PolicySlotsSchema.optional().safeParse(robot.settings['policies']);
  return resolveSlots(robot.name, configured.success ? configured.data : undefined, dataDir);
}
