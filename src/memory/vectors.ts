/**
 * What an entry's embedding is as the store keeps it: beside the entry (LMDB's `vectors`
 * database, same key), tagged with the model that made it, its dimensions and a hash of the text
 * it was made from. A vector of another model, other dimensions or an older text is not the
 * entry's for this model: it is embedded again, lazily.
 */
import { createHash } from 'node:crypto';
import type { Entry } from './entry.js';

export interface StoredVector {
  /** The model that made it, as the server names it (`nomic-embed-text`). */
  readonly model: string;
  readonly dims: number;
  /** The hash of the text embedded (embeddingText), so an edited note is embedded again. */
  readonly hash: string;
  /** Float32, little-endian, base64: a quarter of the size of a JSON array of numbers. */
  readonly data: string;
}

/** What is embedded of an entry: what BM25 reads of it too (text, topic, tags). */
export function embeddingText(e: Pick<Entry, 'text' | 'topic' | 'tags'>): string {
  return [e.text, ...(e.topic !== undefined ? [`topic: ${e.topic}`] : []), ...e.tags.map((t) => `#${t}`)].join(' ');
}

export function textHash(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

export function encodeVector(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

export function decodeVector(data: string): Float32Array {
  const b = Buffer.from(data, 'base64');
  // A copy: the Buffer's memory may be pooled and unaligned for a Float32Array view.
  const out = new Float32Array(Math.floor(b.byteLength / 4));
  for (let i = 0; i < out.length; i += 1) out[i] = b.readFloatLE(i * 4);
  return out;
}

export function looksLikeVector(v: unknown): v is StoredVector {
  if (typeof v !== 'object' || v === null) return false;
  const r = v as Record<string, unknown>;
  return typeof r['model'] === 'string' && typeof r['dims'] === 'number' && typeof r['hash'] === 'string' && typeof r['data'] === 'string';
}

/** The model a store's vectors must come from now; `dims` when the config names it. */
export interface VectorModel {
  readonly model: string;
  readonly dims?: number | undefined;
}

/** Whether `v` is `e`'s vector under `model`: same model, dimensions and text. */
export function current(v: StoredVector | undefined, e: Entry, model: VectorModel): v is StoredVector {
  return v !== undefined && v.model === model.model && (model.dims === undefined || v.dims === model.dims) && v.hash === textHash(embeddingText(e));
}
