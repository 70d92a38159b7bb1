/**
 * Bundles quackd's TypeScript into a handful of ES modules with esbuild, so `quackd` starts
 * without walking node_modules (a Pi Zero 2 W pays about a second for every 100 ms here). One
 * bundle, two places: a robot's bundle (cross/build.sh) and dist/, what `npm run build` makes and
 * `npm install` (from a clone, or -g) runs; both are what the tests run.
 *
 *   node --import tsx cross/bundle.ts OUT_DIR      (npm run bundle -- OUT_DIR)
 *   node --import tsx cross/bundle.ts --dist       (npm run build)
 *
 * OUT_DIR/lib gets the bundle; OUT_DIR/package.json the version. dist/ gets what lib/ gets, beside
 * the repository's package.json. The packages with native or WebAssembly parts stay outside
 * (EXTERNAL): build.sh ships them in OUT_DIR/node_modules, built for the target; dist finds them
 * in the repository's (or the global install's) node_modules.
 *
 * quackd finds its files beside its modules (`new URL('./starters/', import.meta.url)`, a worker
 * or a control plant started by its module's URL). esbuild puts every output in lib/ with no
 * folders, so each source file's `import.meta.url` becomes the URL its module would have in a
 * one-file-per-module layout (lib/ducks/find.js): the starters, the policies and package.json then
 * sit where that layout has them, and each module started by URL gets a one-line file at its path
 * that re-exports its entry.
 */
import { build, type Plugin } from 'esbuild';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../', import.meta.url));
const SRC = join(REPO, 'src');

/**
 * Loaded from node_modules at run time: native bindings, WebAssembly, a require() by name.
 * i2c-bus is an optional dependency built at install (no prebuilds): cross/build.sh cross-compiles
 * it for each arm bundle's own Node. koffi loads its binary from the platform's package
 * (@koromix/koffi-linux-arm64 …), which npm installs for the target.
 */
export const EXTERNAL = ['serialport', '@serialport/*', 'lmdb', 'msgpackr-extract', 'onnxruntime-node', 'onnxruntime-web', '@mujoco/mujoco', 'pino', 'pino-pretty', 'i2c-bus', '@foxglove/wasm-zstd', 'koffi'] as const;

/** Modules quackd starts by URL or path (workers, control plants and skills, a child script), besides the CLI. */
export const STARTED_BY_URL = [
  'control/worker',
  'control/skills/hold',
  'control/skills/pose',
  'control/skills/policy',
  'bodies/microduck/jsonrpc/control-plant',
  'bodies/microduck/mujoco/control-plant',
  'bodies/microduck/servo-bus/control-plant',
  'memory/writer-worker',
  'memory/deep-check',
  'vision/picture-worker',
] as const;

/** The entry's file in lib/: `control/worker` → `control.worker`. */
const flat = (module: string) => module.replaceAll('/', '.');

/** Each src/ file's import.meta.url as dist has it: lib/<its path>.js. */
const distUrls: Plugin = {
  name: 'dist-urls',
  setup(b) {
    b.onLoad({ filter: /\/src\/.*\.ts$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const asDist = `./${relative(SRC, args.path).replace(/\.ts$/, '.js')}`;
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(asDist)}, import.meta.url).href`), loader: 'ts' };
    });
  },
};

/**
 * zod's `z.locales` holds the error messages of 40 languages, half of zod's 580 KB in the bundle,
 * parsed by every command that checks a config. quackd speaks English (zod's default, set apart
 * from this table), so the table keeps English alone.
 */
const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) => (/[/\\]node_modules[/\\]zod[/\\]/.test(args.importer) ? { path: join(dirname(args.importer), '../locales/en.js'), namespace: 'zod-locales' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({ contents: `export { default as en } from ${JSON.stringify(args.path)};`, resolveDir: dirname(args.path), loader: 'js' }));
  },
};

/**
 * `await import('yaml')` of a CommonJS package gets its named exports from Node; a split bundle's
 * chunk would hand over only `default`. Each such package imported by import() goes through an
 * ES module that names its exports (read from the package here, at build time).
 */
const cjsNamedExports: Plugin = {
  name: 'cjs-named-exports',
  setup(b) {
    const require = createRequire(join(REPO, 'package.json'));
    const isCommonJs = (pkg: string) => {
      const file = require.resolve(pkg);
      if (file.endsWith('.mjs')) return false;
      if (file.endsWith('.cjs')) return true;
      const manifest = join(file.slice(0, file.lastIndexOf(`node_modules${sep}`) + 13), ...pkg.split('/'), 'package.json');
      return (JSON.parse(readFileSync(manifest, 'utf8')) as { type?: string }).type !== 'module';
    };
    const external = (pkg: string) => EXTERNAL.some((e) => e === pkg || (e.endsWith('/*') && pkg.startsWith(e.slice(0, -1))));
    b.onResolve({ filter: /^[^./]/ }, (args) =>
      args.kind === 'dynamic-import' && args.namespace === 'file' && !args.path.startsWith('node:') && !external(args.path) && isCommonJs(args.path) ? { path: args.path, namespace: 'cjs-named' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'cjs-named' }, (args) => {
      const names = Object.keys(require(args.path) as object).filter((k) => k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k));
      return { contents: `import m from ${JSON.stringify(args.path)};\nexport default m;\nexport const { ${names.join(', ')} } = m;\n`, resolveDir: REPO, loader: 'js' };
    });
  },
};

/**
 * CommonJS modules that are data alone (JSON values), bundled as ES modules with one export per
 * value so esbuild leaves out the values nothing imports. @foxglove/schemas' JSON Schemas are
 * 126 KB of the run's bundle, parsed at every `quackd run`; a recording uses four of them.
 */
const DATA_MODULES = ['@foxglove/schemas/jsonschema.js'] as const;

const dataAsEsm: Plugin = {
  name: 'data-as-esm',
  setup(b) {
    const require = createRequire(join(REPO, 'package.json'));
    const filter = new RegExp(`^(${DATA_MODULES.map((m) => m.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
    b.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'data-as-esm' }));
    b.onLoad({ filter: /.*/, namespace: 'data-as-esm' }, (args) => {
      const values = Object.entries(require(args.path) as Record<string, unknown>).filter(([k]) => k !== 'default' && /^[A-Za-z_$][\w$]*$/.test(k));
      return { contents: values.map(([k, v]) => `export const ${k} = ${JSON.stringify(v)};`).join('\n'), loader: 'js' };
    });
  },
};

// CommonJS packages bundled into ES modules still call require() for node's own modules.
const banner = "import { createRequire as __quackdRequire } from 'node:module'; const require = __quackdRequire(import.meta.url);";

export interface BundleResult {
  readonly files: number;
  readonly bytes: number;
}

/**
 * The launcher (cross/launcher.ts) as one CommonJS file, lib/quackd.cjs, the bin: the socket
 * clients and the dispatcher bundled in, every other verb left to lib/main.js. Its own copies of
 * those few modules never meet the ES modules' ones: a process runs one or the other. In
 * CommonJS a module's `import.meta.url` is this file's URL, taken from `__filename`.
 */
function buildLauncher(lib: string, sourcemap: boolean) {
  return build({
    entryPoints: [join(REPO, 'cross/launcher.ts')],
    outfile: join(lib, 'quackd.cjs'),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20.11',
    external: [...EXTERNAL],
    define: { 'import.meta.url': '__quackdUrl' },
    banner: { js: '#!/usr/bin/env node\n"use strict"; const __quackdUrl = require("node:url").pathToFileURL(__filename).href;' },
    minify: true,
    keepNames: true,
    sourcemap,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    plugins: [distUrls],
  });
}

/**
 * The bundle into `lib` (emptied first). `sourcemap`: a .map beside each file, which the
 * launcher turns on for `--debug`, so a stack trace names the TypeScript's lines (dist's; a
 * robot's bundle goes without, for its size).
 */
async function buildLib(lib: string, sourcemap: boolean, extra: readonly Entry[] = []): Promise<BundleResult> {
  rmSync(lib, { recursive: true, force: true });
  const launcher = await buildLauncher(lib, sourcemap);
  const result = await build({
    entryPoints: [{ in: join(SRC, 'main.ts'), out: 'main' }, ...STARTED_BY_URL.map((m) => ({ in: join(SRC, `${m}.ts`), out: flat(m) })), ...extra],
    outdir: lib,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    // The armv7 bundle carries Node 20.11, the newest armv7 build published.
    target: 'node20.11',
    chunkNames: 'chunk-[hash]',
    external: [...EXTERNAL],
    banner: { js: banner },
    // Less to parse at every start; keepNames keeps the names errors and logs print.
    minify: true,
    keepNames: true,
    sourcemap,
    legalComments: 'none',
    logLevel: 'warning',
    metafile: true,
    plugins: [distUrls, zodEnglishOnly, dataAsEsm, cjsNamedExports],
  });
  for (const m of STARTED_BY_URL) {
    const at = join(lib, `${m}.js`);
    mkdirSync(dirname(at), { recursive: true });
    const target = relative(dirname(at), join(lib, `${flat(m)}.js`));
    writeFileSync(at, `export * from ${JSON.stringify(target.startsWith('.') ? target : `./${target}`)};\n`);
  }
  // buildStamp() (src/service/build.ts) reads its own file's time: the bundle's build time.
  mkdirSync(join(lib, 'service'), { recursive: true });
  writeFileSync(join(lib, 'service/build.js'), '// src/service/build.ts reads the time of this file: when the bundle was built.\n');
  cpSync(join(SRC, 'ducks/starters'), join(lib, 'ducks/starters'), { recursive: true });
  cpSync(join(SRC, 'policy/bundled'), join(lib, 'policy/bundled'), { recursive: true });
  const outputs = [...Object.entries(result.metafile.outputs), ...Object.entries(launcher.metafile.outputs)].filter(([file]) => !file.endsWith('.map'));
  return { files: outputs.length, bytes: outputs.reduce((n, [, o]) => n + o.bytes, 0) };
}

/** An entry point of one's own, bundled with quackd's (a bench's child, which imports src/ modules): lib/<out>.js. */
export interface Entry {
  readonly in: string;
  readonly out: string;
}

/** A robot's bundle: OUT/lib and OUT/package.json (the version, and `type: module` for lib/). */
export async function bundle(out: string, extra: readonly Entry[] = []): Promise<BundleResult> {
  const result = await buildLib(join(out, 'lib'), false, extra);
  const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { name: string; version: string; license: string; description: string };
  writeFileSync(join(out, 'package.json'), `${JSON.stringify({ name: pkg.name, version: pkg.version, description: pkg.description, license: pkg.license, type: 'module', private: true }, null, 2)}\n`);
  return result;
}

/** dist/: the same bundle, with source maps, beside the repository's package.json (package.json's bin is dist/quackd.cjs). */
export function buildDist(dist: string = join(REPO, 'dist')): Promise<BundleResult> {
  return buildLib(dist, true);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = process.argv[2];
  if (out === undefined || out === '-h' || out === '--help') {
    console.error('usage: node --import tsx cross/bundle.ts OUT_DIR | --dist');
    process.exit(2);
  }
  const into = out === '--dist' ? join(REPO, 'dist') : join(out, 'lib');
  const r = out === '--dist' ? await buildDist() : await bundle(out);
  console.log(`bundled: ${r.files} modules, ${(r.bytes / 1e6).toFixed(1)} MB in ${into}`);
}
