/**
 * What a microduck:mujoco robot is configured with, and what it can do: apart from the body so
 * the catalog can list them without loading MuJoCo or onnxruntime.
 */
import { z } from 'zod';
import { PolicySlotsSchema } from '../../../policy/slots.js';
import { headingHoldSetting } from '../heading-hold-setting.js';

export const mujocoSettings = z
  .object({
    /** Folders for the policy slots (walk, turn, stand, kick_left, kick_right); the bundled ones otherwise. */
    policies: PolicySlotsSchema.optional(),
    /** How a straight walk keeps its heading (heading-hold-setting.ts): `false` for none. */
    heading_hold: headingHoldSetting,
    /**
     * `lockstep` (default): the twin's time runs only while a verb runs, as fast as the physics
     * computes, so a run is deterministic and never waits on the wall clock; `realtime`: 50 Hz on
     * the wall clock, as the real duck runs.
     */
    pace: z.enum(['lockstep', 'realtime']).default('lockstep'),
    /** The servos' stiffness, N·m/rad (the twin's default holds the legacy crouch; see duck-spec.ts; a model of your own keeps its own). */
    kp: z.number().positive().optional(),
    /**
     * A model of your own instead of quackd's duck: an MJCF file (a scene, or the robot's own
     * file) with its meshes and includes beside it, relative to the working directory. Its joints
     * are found by the names the walk policy's manifest lists (`joints`), else the Microduck's.
     */
    mjcf: z.string().min(1).optional(),
    /** With `mjcf`: the names of its gyro and framequat sensors and of its camera (a site or a camera), where they are not found by themselves (anatomy.ts). */
    mjcf_gyro: z.string().min(1).optional(),
    mjcf_framequat: z.string().min(1).optional(),
    mjcf_camera: z.string().min(1).optional(),
    /** `synthetic`: what the twin sees comes from its head camera's rendered frames and the colour detector, not from the simulator. */
    camera: z.literal('synthetic').optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    for (const key of ['mjcf_gyro', 'mjcf_framequat', 'mjcf_camera'] as const) {
      if (s[key] !== undefined && s.mjcf === undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'names a part of a model of your own: give mjcf too' });
    }
  });

export const MUJOCO_VERBS = ['search_scan', 'turn', 'walk', 'kick', 'quack', 'torque'] as const;
export const MUJOCO_METRICS = ['ball_displaced_m', 'quacks', 'tilt_deg', 'walked_m', 'torque'] as const;
