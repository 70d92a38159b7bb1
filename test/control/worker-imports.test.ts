/**
 * What the control worker loads: its entry, the skills and the plants it starts by URL (the
 * bundle's list), with every module they import. zod's full build costs an isolate that imports it
 * about 5 MB of heap before the first schema; the worker's schemas use zod/mini (src/zod-mini.ts),
 * and one full-build import anywhere in that graph would bring all of it back, unnoticed.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, it } from 'node:test';
import { EXTERNAL, STARTED_BY_URL } from '../../cross/bundle.js';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const IN_WORKER = STARTED_BY_URL.filter((m) => m.startsWith('control/') || m.endsWith('/control-plant'));

describe('the control worker', () => {
  it('loads zod/mini, never zod’s full build', async () => {
    assert.ok(IN_WORKER.length >= 7, `${IN_WORKER.join(', ')}: the worker's modules`);
    const result = await build({ entryPoints: IN_WORKER.map((m) => `${SRC}${m}.ts`), bundle: true, splitting: true, format: 'esm', platform: 'node', outdir: '/nowhere', write: false, metafile: true, external: [...EXTERNAL], logLevel: 'silent' });
    const inputs = Object.keys(result.metafile.inputs);
    assert.ok(inputs.some((f) => f.includes('node_modules/zod/v4/mini/')), 'zod/mini is in the graph (the check looks where it should)');
    const full = inputs.filter((f) => f.includes('node_modules/zod/v4/classic/'));
    const importers = Object.entries(result.metafile.inputs)
      .filter(([f, i]) => f.startsWith('src/') && i.imports.some((x) => x.path.includes('node_modules/zod/') && !/zod\/(v4\/)?(mini|core|locales)\b/.test(x.path)))
      .map(([f]) => f);
    assert.deepEqual(full, [], `zod's full build reaches the worker through ${importers.join(', ')}`);
  });
});
