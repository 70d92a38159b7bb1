/**
 * The node_modules a bundle ships: the packages esbuild left outside (cross/bundle.ts EXTERNAL)
 * and what they depend on, copied from a tree npm installed for the target, with the prebuilt
 * binaries of every other platform removed (serialport and onnxruntime-node carry them all).
 *
 *   node --import tsx cross/modules.ts STAGE_DIR BUNDLE_DIR TARGET
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTERNAL } from './bundle.js';

export const TARGETS = {
  'linux-arm64': { prebuilds: 'linux-arm64', ort: 'linux/arm64' },
  'linux-armv7': { prebuilds: 'linux-arm', ort: undefined },
} as const;
export type Target = keyof typeof TARGETS;
export const isTarget = (t: string): t is Target => Object.hasOwn(TARGETS, t);

interface Manifest {
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
}

const manifest = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;

/** Node's lookup: `name` in from/node_modules, then in each folder's above it, up to the stage. */
function resolve(stage: string, from: string, name: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const at = join(dir, 'node_modules', name);
    if (existsSync(join(at, 'package.json'))) return at;
    if (dir === stage || relative(stage, dir).startsWith('..')) return undefined;
  }
}

/** The EXTERNAL names installed in the stage (`@serialport/*` is every package of that scope). */
function roots(stage: string): string[] {
  const nm = join(stage, 'node_modules');
  return EXTERNAL.flatMap((name) => {
    if (!name.endsWith('/*')) return existsSync(join(nm, name, 'package.json')) ? [name] : [];
    const scope = name.slice(0, -2);
    return existsSync(join(nm, scope)) ? readdirSync(join(nm, scope)).map((p) => `${scope}/${p}`) : [];
  });
}

/** Every package folder (relative to the stage) the externals need, each once. */
export function closure(stage: string): string[] {
  const seen = new Set<string>();
  const visit = (dir: string) => {
    const rel = relative(stage, dir);
    if (seen.has(rel)) return;
    seen.add(rel);
    const m = manifest(dir);
    // Optional and peer dependencies travel only when npm installed them (the target's prebuilds).
    for (const dep of Object.keys({ ...m.dependencies, ...m.optionalDependencies, ...m.peerDependencies })) {
      // Type declarations are for the compiler, not the robot.
      const found = dep.startsWith('@types/') ? undefined : resolve(stage, dir, dep);
      if (found !== undefined) visit(found);
    }
  };
  for (const name of roots(stage)) visit(join(stage, 'node_modules', name));
  return [...seen].sort();
}

/** Copies the closure into bundle/node_modules; a nested node_modules comes only with what it holds that is needed. */
export function shipModules(stage: string, bundle: string, target: Target): string[] {
  const packages = closure(stage);
  rmSync(join(bundle, 'node_modules'), { recursive: true, force: true });
  for (const rel of packages) {
    const from = join(stage, rel);
    cpSync(from, join(bundle, rel), { recursive: true, filter: (src) => !relative(from, src).split(sep).includes('node_modules') });
  }
  pruneForeign(join(bundle, 'node_modules'), target);
  return packages;
}

const WEB_FOR_NODE = ['ort.node.min.mjs', 'ort.node.min.js', 'ort-wasm-simd-threaded.mjs', 'ort-wasm-simd-threaded.wasm'];

/** Removes the prebuilt binaries for other systems, keeping the target's. */
function pruneForeign(nm: string, target: Target): void {
  const t = TARGETS[target];
  const keepOnly = (dir: string, keep: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) if (entry !== keep) rmSync(join(dir, entry), { recursive: true, force: true });
  };
  keepOnly(join(nm, '@serialport/bindings-cpp/prebuilds'), t.prebuilds);
  // Node loads onnxruntime-web's node build and its one WebAssembly file; the browsers' builds are 120 MB.
  const web = join(nm, 'onnxruntime-web/dist');
  if (existsSync(web)) for (const f of readdirSync(web)) if (!WEB_FOR_NODE.includes(f)) rmSync(join(web, f), { force: true });
  const ort = join(nm, 'onnxruntime-node/bin/napi-v6');
  if (t.ort !== undefined) {
    const [os, arch] = t.ort.split('/') as [string, string];
    keepOnly(ort, os);
    keepOnly(join(ort, os), arch);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [stage, bundle, target] = process.argv.slice(2);
  if (stage === undefined || bundle === undefined || target === undefined || !isTarget(target)) {
    console.error(`usage: node --import tsx cross/modules.ts STAGE_DIR BUNDLE_DIR ${Object.keys(TARGETS).join('|')}`);
    process.exit(2);
  }
  const shipped = shipModules(stage, bundle, target);
  console.log(`node_modules: ${shipped.length} packages for ${target} (${roots(stage).join(', ')} and their dependencies)`);
}
