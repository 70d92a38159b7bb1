/**
 * The `.duck` front matter schema: one zod schema is both the validator and the type.
 */
import { z } from 'zod';
import { flockSchema } from '../flock/spec.js';

const verbName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'a verb name is lower_snake_case');

export const successCheckText = /^\s*([a-z][a-z0-9_]*)\s*(>=|<=|==|>|<)\s*(-?\d+(?:\.\d+)?)\s*$/;

export const frontMatterSchema = z
  .object({
    description: z.string().max(200).optional(),
    robot: z.string().regex(/^[a-z0-9-]+:[a-z0-9-]+$/, 'expected adapter:backend, e.g. microduck:sim2d').optional(),
    verbs: z.array(verbName).min(1, 'list at least one verb'),
    budgets: z
      .object({
        steps: z.number().int().min(1).max(1000).optional(),
        llm_calls: z.number().int().min(1).max(5000).optional(),
        seconds: z.number().min(1).max(86_400).optional(),
      })
      .strict()
      .optional(),
    confirm: z.array(verbName).optional(),
    success_when: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .refine((v) => v === undefined || (Array.isArray(v) ? v : [v]).every((s) => successCheckText.test(s)), {
        message: 'expected checks like "ball_displaced_m >= 0.3"',
      }),
    /** A flock duck: its members each run the duck, a coordinator's plan over them (src/flock). */
    flock: flockSchema.optional(),
  })
  .strict();

export type FrontMatter = z.infer<typeof frontMatterSchema>;
