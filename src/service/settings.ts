/**
 * The config file's `service:` section: what `quackd serve` itself takes. The control socket is
 * the owner's alone (0600) unless a group is named; then its members (over SSH) may use it too.
 */
import { z } from 'zod';

export const ServiceSectionSchema = z
  .object({
    /** A group whose members may use the control socket (mode 0660), e.g. `quackd`. */
    socket_group: z.string().regex(/^[a-z_][a-z0-9_-]{0,31}$/, 'a group name, e.g. quackd').optional(),
    /** How long a confirmation gate waits for a person before it is "not confirmed". */
    gate_timeout_s: z.number().positive().max(86_400).optional(),
  })
  .strict();

export type ServiceSection = z.infer<typeof ServiceSectionSchema>;
