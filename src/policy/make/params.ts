/**
 * The bundled policies' parameters: the one file a tuning search in the MuJoCo twin rewrites
 * (with renderParams in params-file.ts, so the file stays in this form), then `npm run
 * make:policies` regenerates src/policy/bundled/. Meanings and units: param-types.ts.
 *
 * These are first guesses from the duck's size (legs about 0.1 m, trunk at 0.1 m), not tuned
 * values, and the joint signs are read off the legacy home pose, unverified in physics.
 */
import type { PolicyParams } from './param-types.js';

export const PARAMS: PolicyParams = {
  "actionScale": 1,
  "home": [0, 0, 0.6, -1.2, 0.6, -0.5, 0.5, 0, 0, 0, 0, -0.6, 1.2, -0.6],
  "signs": {
    "hipPitchForward": 1,
    "hipRollLeft": 1,
    "hipRollRight": 1,
    "hipYawLeft": 1,
    "hipYawRight": 1
  },
  "stance": {
    "crouch": 0,
    "splay": 0,
    "lean": 0
  },
  "balance": {
    "pitchHip": 0.4,
    "pitchHipRate": 0.03,
    "pitchAnkle": 0.3,
    "pitchAnkleRate": 0.02,
    "rollHip": 0.4,
    "rollHipRate": 0.03
  },
  "walk": {
    "period_s": 0.5,
    "stepHeight": 0.25,
    "stridePerVx": 1.2,
    "lateralPerVy": 0.8,
    "yawPerVyaw": 0.15,
    "sway": 0.08,
    "activity": {
      "vx": 10,
      "vy": 10,
      "vyaw": 3
    },
    "ranges": {
      "vx": [-0.2, 0.4],
      "vy": [-0.15, 0.15],
      "vyaw": [-1.5, 1.5]
    }
  },
  "turn": {
    "period_s": 0.5,
    "stepHeight": 0.2,
    "stridePerVx": 1.2,
    "lateralPerVy": 0.8,
    "yawPerVyaw": 0.2,
    "sway": 0.08,
    "activity": {
      "vx": 10,
      "vy": 10,
      "vyaw": 3
    },
    "ranges": {
      "vx": [-0.1, 0.1],
      "vy": [-0.1, 0.1],
      "vyaw": [-2, 2]
    }
  },
  "kick": {
    "duration_s": 1.2,
    "shift": 0.12,
    "shiftRamp": 2,
    "lift": 0.3,
    "windBack": 0.3,
    "swing": 0.6,
    "kneeExtend": 0.3
  }
};
