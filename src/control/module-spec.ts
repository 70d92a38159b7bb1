/**
 * Plants and skills are made inside the control worker from a module specifier and JSON options
 * (what crosses a thread is data, never an object with methods), so the MuJoCo twin, the bridge
 * and a policy skill plug in without the loop knowing them. The loading half runs in the worker.
 */
import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Plant } from './plant.js';
import type { Skill, SkillContext } from './skill.js';

export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

/**
 * A plant or a skill to be made in the worker: `module` is a URL, an absolute path or a package
 * specifier (resolve a relative path against your own module: `new URL('./x.js',
 * import.meta.url).href`); `export` names its factory (`createPlant` / `createSkill` unless set).
 */
export interface ModuleSpec {
  readonly module: string;
  readonly export?: string;
  readonly options?: Json;
}

/** What a plant module exports (as `createPlant` unless the spec names another export). */
export type PlantFactory = (options: Json | undefined) => Plant | Promise<Plant>;

/** Why a spec cannot be used, or undefined; checked on the main thread before a worker sees it. */
export function specProblem(spec: ModuleSpec): string | undefined {
  if (spec.module.startsWith('.')) return `"${spec.module}" is relative; pass a URL or an absolute path`;
  return undefined;
}

const specifier = (module: string) => (isAbsolute(module) ? pathToFileURL(module).href : module);

async function importModule(module: string): Promise<Record<string, unknown>> {
  const mod: unknown = await import(specifier(module));
  return typeof mod === 'object' && mod !== null ? (mod as Record<string, unknown>) : {};
}

/** The skill modules this worker has imported, for settleSkills. */
const skillModules = new Set<Record<string, unknown>>();

async function importSkillModule(module: string): Promise<Record<string, unknown>> {
  const mod = await importModule(module);
  skillModules.add(mod);
  return mod;
}

function factory(mod: Record<string, unknown>, spec: ModuleSpec, fallback: string): (...args: unknown[]) => unknown {
  const name = spec.export ?? fallback;
  const f = mod[name];
  if (typeof f !== 'function') throw new Error(`${spec.module} has no ${name}() export`);
  return (...args: unknown[]): unknown => Reflect.apply(f, undefined, args);
}

const hasMethods = (x: unknown, ...names: string[]): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && names.every((n) => typeof (x as Record<string, unknown>)[n] === 'function');

function isPlant(x: unknown): x is Plant {
  return hasMethods(x, 'read', 'send') && Array.isArray(x['joints']);
}

function isSkill(x: unknown): x is Skill {
  return hasMethods(x, 'tick');
}

export async function loadPlant(spec: ModuleSpec): Promise<Plant> {
  const plant = await factory(await importModule(spec.module), spec, 'createPlant')(spec.options);
  if (!isPlant(plant)) throw new Error(`${spec.module}: its factory did not return a plant (joints, read, send)`);
  return plant;
}

/**
 * Imports a skill module and awaits its `warm(options)` export, if it has one, before the loop
 * ticks. A module first imported by a verb is imported between two ticks, and what it loads
 * blocks the thread: onnxruntime-node's native binding 20–30 ms, its first session as much again.
 */
export async function warmSkill(spec: ModuleSpec): Promise<void> {
  const warm = (await importSkillModule(spec.module))['warm'];
  if (typeof warm === 'function') await (Reflect.apply(warm, undefined, [spec.options]) as Promise<void> | undefined);
}

export async function loadSkill(spec: ModuleSpec, context: SkillContext): Promise<Skill> {
  const skill = await factory(await importSkillModule(spec.module), spec, 'createSkill')(spec.options, context);
  if (!isSkill(skill)) throw new Error(`${spec.module}: its factory did not return a skill (tick)`);
  return skill;
}

/**
 * Awaits each imported skill module's `settle()` export, if it has one: the work its skills left
 * running when their ticks were abandoned (a stop, a close), which must end before the thread
 * does. A policy's ONNX run is such work: the thread ending under it aborts the process.
 */
export async function settleSkills(): Promise<void> {
  for (const mod of skillModules) {
    const settle = mod['settle'];
    if (typeof settle === 'function') await (Reflect.apply(settle, undefined, []) as Promise<void> | undefined);
  }
}
