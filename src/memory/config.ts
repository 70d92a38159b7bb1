/**
 * The config file's `memory:` section: today, `embeddings:`, the OpenAI-compatible server recall
 * asks for sentence embeddings (off when absent). The schema only (the config loader imports it);
 * src/memory/embedding-settings.ts resolves it with the flags and a calibrated floor.
 */
import { z } from 'zod';

export const EmbeddingsSchema = z
  .object({
    /** e.g. `http://127.0.0.1:11434/v1` (Ollama), llama.cpp's `--embeddings` server, vLLM, OpenAI. */
    base_url: z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }),
    /** The server's embedding model, e.g. `nomic-embed-text`. */
    model: z.string().min(1),
    /** A 0600 file holding the server's API key, when it wants one. */
    key_file: z.string().min(1).optional(),
    /** The vector size to ask for (models that can shorten theirs); also checked on every answer. */
    dims: z.int().min(1).max(16384).optional(),
    /** Cosine similarity an entry needs to answer by meaning; default: the eval's calibration for this model, else 0.35. */
    floor: z.number().min(-1).max(1).optional(),
    /** The share of the fused ranking that meaning carries, 0..1 (0.5: as much as words). */
    weight: z.number().min(0).max(1).optional(),
    /** Deadline of one call to the server, in seconds. */
    timeout_s: z.number().positive().max(600).optional(),
  })
  .strict();

export const MemorySectionSchema = z
  .object({
    embeddings: EmbeddingsSchema.optional(),
    /** Share each body's notes with the fleet's other quackds through the MQTT broker (src/memory/share); `episodes`: their episodes too. */
    share: z.union([z.boolean(), z.literal('episodes')]).optional(),
    /** The topic the fleet's memory lives under (default quackd/memory): the same on every quackd that shares, whatever its mqtt.base_topic. */
    share_topic: z
      .string()
      .regex(/^[^#+/\s\0]+(\/[^#+/\s\0]+)*$/, 'a topic without wildcards (+, #), spaces or empty levels, e.g. quackd/memory')
      .optional(),
  })
  .strict();

export type MemorySection = z.infer<typeof MemorySectionSchema>;

