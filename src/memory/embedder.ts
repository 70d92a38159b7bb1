/**
 * The embedding server memory asks for vectors: any OpenAI-compatible `/v1/embeddings` (Ollama,
 * llama.cpp's server with --embeddings, vLLM, OpenAI), through the official SDK. Nothing the
 * secret check refuses (src/memory/secret-check.ts) is sent: such a text gets no vector and is
 * found by its words only. A failure is an EmbeddingError of one line; callers fall back to words.
 */
import type { OpenAI } from 'openai';
import { secretReason } from './secret-check.js';
import type { VectorModel } from './vectors.js';

/** How memory reaches its embedding server (the config's `memory.embeddings`, resolved). */
export interface EmbeddingSettings extends VectorModel {
  /** e.g. `http://127.0.0.1:11434/v1`. */
  readonly baseUrl: string;
  readonly apiKey?: string | undefined;
  /** Deadline of one call. */
  readonly timeoutMs: number;
  /** The similarity floor for this model (calibrated, configured, or the default). */
  readonly floor: number;
  /** Where the floor came from: `memory.embeddings.floor in …`, `calibrated …`, `default`. */
  readonly floorFrom: string;
  /** The share of the fused score that meaning carries. */
  readonly weight: number;
}

export class EmbeddingError extends Error {
  override readonly name = 'EmbeddingError';
}

export interface Embedder extends VectorModel {
  /** The server as the transcript names it: its base URL. */
  readonly server: string;
  /** One vector per text, in order; undefined for a text that was not sent (it looks like a secret). */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<(Float32Array | undefined)[]>;
}

/** Texts per call: small enough for a CPU server to answer within its deadline. */
export const EMBED_BATCH = 32;

const firstLine = (err: unknown) => (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';

export function openAiEmbedder(settings: EmbeddingSettings): Embedder {
  let client: Promise<OpenAI> | undefined;
  // Loaded on the first call: opening a store with embeddings configured costs no SDK import.
  const sdk = () =>
    (client ??= import('openai').then(
      ({ default: OpenAI }) =>
        new OpenAI({ apiKey: settings.apiKey ?? 'none', baseURL: settings.baseUrl, maxRetries: 0, timeout: settings.timeoutMs, organization: null, project: null, webhookSecret: null }),
    ));
  return {
    model: settings.model,
    dims: settings.dims,
    server: settings.baseUrl,
    async embed(texts, signal) {
      const out: (Float32Array | undefined)[] = texts.map(() => undefined);
      const sendable = texts.map((t, i) => ({ t, i })).filter(({ t }) => t.trim() !== '' && secretReason(t) === undefined);
      for (let at = 0; at < sendable.length; at += EMBED_BATCH) {
        const batch = sendable.slice(at, at + EMBED_BATCH);
        let data: { embedding: unknown; index?: unknown }[];
        try {
          const res = await (await sdk()).embeddings.create(
            { model: settings.model, input: batch.map((b) => b.t), encoding_format: 'float', ...(settings.dims !== undefined ? { dimensions: settings.dims } : {}) },
            { ...(signal !== undefined ? { signal } : {}), timeout: settings.timeoutMs },
          );
          data = res.data as { embedding: unknown; index?: unknown }[];
        } catch (err) {
          throw new EmbeddingError(`embedding server ${settings.baseUrl}: ${firstLine(err)}`);
        }
        if (!Array.isArray(data) || data.length !== batch.length) throw new EmbeddingError(`embedding server ${settings.baseUrl}: ${batch.length} texts sent, ${Array.isArray(data) ? data.length : 'no'} vectors back`);
        for (const [k, d] of data.entries()) {
          const e = d.embedding;
          if (!Array.isArray(e) || e.length === 0 || !e.every((x) => typeof x === 'number' && Number.isFinite(x))) throw new EmbeddingError(`embedding server ${settings.baseUrl}: a vector that is not a list of numbers`);
          if (settings.dims !== undefined && e.length !== settings.dims) throw new EmbeddingError(`embedding server ${settings.baseUrl}: vectors of ${e.length} dimensions, not the ${settings.dims} configured`);
          const slot = typeof d.index === 'number' ? d.index : k;
          const target = batch[slot];
          if (target !== undefined) out[target.i] = Float32Array.from(e as number[]);
        }
      }
      return out;
    },
  };
}
