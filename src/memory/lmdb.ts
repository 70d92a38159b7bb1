/**
 * lmdb-js, loaded through require(): its one-file CommonJS build. Its ES modules are some forty
 * files (its own, msgpackr's, weak-lru-cache's …) for node's ES module loader to resolve and link,
 * which took half as long again as the one file on every command that opens the store
 * (bench/startup.ts). Every quackd module that opens LMDB takes it from here, so a process holds
 * one copy of lmdb-js.
 */
import { createRequire } from 'node:module';
import type * as Lmdb from 'lmdb';

export type { Database, Key, RootDatabase } from 'lmdb';

export const { open } = createRequire(import.meta.url)('lmdb') as typeof Lmdb;
