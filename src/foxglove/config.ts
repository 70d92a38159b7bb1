/**
 * The config file's `foxglove:` section: `quackd serve` runs the live Foxglove server when it is
 * there (or `--foxglove` is given). `listen` is ADDR:PORT (default 127.0.0.1:8765, Foxglove's own
 * default port); off loopback `token_file` (a 0600 file) or QUACKD_FOXGLOVE_TOKEN must give a token.
 */
import { z } from 'zod';

export const FOXGLOVE_HOST = '127.0.0.1';
/** The port Foxglove's connection dialog and foxglove_bridge use. */
export const FOXGLOVE_PORT = 8765;

export const FoxgloveSectionSchema = z.union([
  z.literal(false),
  z
    .object({
      /** ADDR:PORT, [IPv6]:PORT, ADDR or PORT. */
      listen: z.string().min(1).optional(),
      /** The token a client off loopback must give, in a 0600 file. */
      token_file: z.string().min(1).optional(),
    })
    .strict(),
]);

export type FoxgloveSection = z.infer<typeof FoxgloveSectionSchema>;
