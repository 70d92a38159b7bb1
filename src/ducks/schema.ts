/**
 * The `.duck` front matter schema: one zod schema is both the validator and the type. Its numbers
 * are numberSetting's, as config.yaml's are: a wrong one says what was written and an example.
 */
import { z } from 'zod';
import { numberSetting } from '../config/number-setting.js';
import { flockSchema } from '../flock/spec.js';
import { DEFAULT_BUDGETS } from './duck.js';

const verbName = z.string().regex(/^[a-z][a-z0-9_]*$/, 'a verb name is lower_snake_case');

export const successCheckText = /^\s*([a-z][a-z0-9_]*)\s*(>=|<=|==|>|<)\s*(-?\d+(?:\.\d+)?)\s*$/;

export const frontMatterSchema = z
  .object({
    description: z.string().max(200).optional(),
    robot: z.string().regex(/^[a-z0-9-]+:[a-z0-9-]+$/, 'expected adapter:backend, e.g. microduck:sim2d').optional(),
    verbs: z.array(verbName).min(1, 'list at least one verb'),
    budgets: z
      .object({
        steps: z.optional(numberSetting({ example: DEFAULT_BUDGETS.steps, int: true, min: 1, max: 1000 })),
        llm_calls: z.optional(numberSetting({ example: DEFAULT_BUDGETS.llm_calls, int: true, min: 1, max: 5000 })),
        seconds: z.optional(numberSetting({ example: DEFAULT_BUDGETS.seconds, min: 1, max: 86_400 })),
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
