/**
 * bench/_floor.ts's parts floor: the libraries a held Open Duck Mini's service has loaded in its
 * main thread after bench/service.ts's (d) walk, imported and kept, nothing of theirs run. They
 * are the chosen parts and what its front doors stand on: the MQTT client and the
 * embedded broker (mqtt, aedes), the robot memory (lmdb), the logs (pino), the config and the
 * checks of every request (yaml, zod), the walk's OpenAI-compatible pilot (openai). lmdb and pino
 * are required as quackd requires them (src/memory/lmdb.ts, src/log.ts: outside the bundle);
 * the rest is bundled with this file as dist is. quackd's own choices it could move (koffi's trim,
 * the recorder's zstd and MCAP) are left out: this is the least the service could hold.
 */
import { createRequire } from 'node:module';
import * as aedes from 'aedes';
import * as mqtt from 'mqtt';
import * as openai from 'openai';
import * as yaml from 'yaml';
import * as zod from 'zod';

const require = createRequire(import.meta.url);

/** Kept by this module for the process's life, as the service keeps its modules. */
export const CHOSEN_PARTS: Readonly<Record<string, unknown>> = { aedes, lmdb: require('lmdb') as unknown, mqtt, openai, pino: require('pino') as unknown, yaml, zod };
