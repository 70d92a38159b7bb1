/**
 * The embedding settings a command uses: `--embeddings-url`/`--embeddings-model` over the config
 * file's `memory.embeddings`, the key file read, the similarity floor the eval calibrated.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { readKeyFile } from '../config/api-key.js';
import { configPath, type ConfigFile } from '../config/file.js';
import { dataDir } from '../config/paths.js';
import { expandPath } from '../config/pilot.js';
import { InputError } from '../errors.js';
import type { MemorySection } from './config.js';
import type { EmbeddingSettings } from './embedder.js';
import { DEFAULT_MEANING_WEIGHT, DEFAULT_SIMILARITY_FLOOR } from './fusion.js';

export const EMBEDDING_TIMEOUT_MS = 10_000;

/** What the command line said (`--embeddings-url`, `--embeddings-model`). */
export interface EmbeddingFlags {
  readonly url?: string | undefined;
  readonly model?: string | undefined;
}

/** Where `npm run eval:memory -- --calibrate` keeps the floors it measured, by model. */
export function floorsFile(dataDir: string): string {
  return join(dataDir, 'embedding-floors.json');
}

/** `model/dims` or `model`: the key of a calibrated floor. */
export const floorKey = (model: string, dims?: number) => (dims !== undefined ? `${model}/${dims}` : model);

function calibrated(dataDir: string, model: string, dims: number | undefined): number | undefined {
  try {
    const all = JSON.parse(readFileSync(floorsFile(dataDir), 'utf8')) as Record<string, { floor?: unknown }>;
    const f = all[floorKey(model, dims)]?.floor ?? all[model]?.floor;
    return typeof f === 'number' && Number.isFinite(f) ? f : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The embedding settings a command uses: the flags over the config file's `memory.embeddings`;
 * undefined when neither names a server (recall is by words alone, as before).
 */
export function resolveEmbeddings(section: MemorySection | undefined, configPath: string, flags: EmbeddingFlags, dataDir: string): EmbeddingSettings | undefined {
  const file = section?.embeddings;
  const baseUrl = flags.url ?? file?.base_url;
  if (baseUrl === undefined) return undefined;
  if (!/^https?:\/\/[^/]/.test(baseUrl)) throw new InputError(`--embeddings-url: "${baseUrl}" is not an http:// or https:// URL`, 'e.g. --embeddings-url http://127.0.0.1:11434/v1');
  const model = flags.model ?? file?.model;
  if (model === undefined) throw new InputError('embeddings: no model named', 'give --embeddings-model, or memory.embeddings.model in the config file');
  const dims = file?.dims;
  const apiKey = file?.key_file !== undefined ? readKeyFile(expandPath(file.key_file, dirname(configPath))) : undefined;
  const measured = file?.floor === undefined ? calibrated(dataDir, model, dims) : undefined;
  const floor = file?.floor ?? measured ?? DEFAULT_SIMILARITY_FLOOR;
  const floorFrom = file?.floor !== undefined ? `memory.embeddings.floor in ${configPath}` : measured !== undefined ? `calibrated (${floorsFile(dataDir)})` : 'default: not calibrated';
  return { baseUrl, model, ...(dims !== undefined ? { dims } : {}), ...(apiKey !== undefined ? { apiKey } : {}), timeoutMs: (file?.timeout_s ?? EMBEDDING_TIMEOUT_MS / 1000) * 1000, floor, floorFrom, weight: file?.weight ?? DEFAULT_MEANING_WEIGHT };
}

/** A runtime's `memoryEmbeddings` from the config file (none when `memory.embeddings` is absent), for spreading into its config. */
export function runtimeEmbeddings(config: ConfigFile, env: NodeJS.ProcessEnv): { memoryEmbeddings?: EmbeddingSettings } {
  const settings = resolveEmbeddings(config.memory, configPath(env), {}, dataDir(env));
  return settings !== undefined ? { memoryEmbeddings: settings } : {};
}
