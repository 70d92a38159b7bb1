/**
 * zod's small build, for what the control worker loads (its skills, its plants and the modules
 * they share with the main thread). The full build costs every isolate that imports it about 5 MB
 * of heap, built before the first schema; zod/mini only what is used. English messages, as the
 * full build gives: zod/mini ships none by default, and a worker has no one else to set them.
 * Import it as `import * as z from '…/zod-mini.js'`. test/control/worker-imports.test.ts keeps the
 * full build out of the worker.
 */
import { config } from 'zod/mini';
import { en } from 'zod/locales';

config(en());

export * from 'zod/mini';
