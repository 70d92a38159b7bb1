/**
 * What a microduck:mujoco robot is configured with, and what it can do: apart from the body so
 * the catalog can list them without loading MuJoCo or onnxruntime.
 */
import { z } from 'zod';
import { PolicySlotsSchema } from '../../../policy/slots.js';

export const mujocoSettings = z
  .object({
    /** Folders for the policy slots (walk, turn, stand, kick_left, kick_right); the bundled ones otherwise. */
    policies: PolicySlotsSchema.optional(),
    /**
     * `lockstep` (default): the twin's time runs only while a verb runs, as fast as the physics
     * computes, so a run is deterministic and never waits on the wall clock; `realtime`: 50 Hz on
     * the wall clock, as the real duck runs.
     */
    pace: z.enum(['lockstep', 'realtime']).default('lockstep'),
    /** The servos' stiffness, N·m/rad (the twin's default holds the legacy crouch; see duck-spec.ts). */
    kp: z.number().positive().optional(),
  })
  .strict();

export const MUJOCO_VERBS = ['search_scan', 'turn', 'walk', 'kick', 'quack'] as const;
export const MUJOCO_METRICS = ['ball_displaced_m', 'quacks', 'tilt_deg', 'walked_m'] as const;
