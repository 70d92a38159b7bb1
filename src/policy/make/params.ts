/**
 * The bundled policies' parameters: the one file a tuning search in the MuJoCo twin rewrites
 * (with renderParams in params-file.ts, so the file stays in this form), then `npm run
 * make:policies` regenerates src/policy/bundled/. Meanings and units: param-types.ts.
 *
 * Written by `npm run tune:policies` (tune.ts): gait, balance, stance and kick are the search's
 * winner in the twin; the joint signs were measured there by moving one joint at a time.
 */
import type { PolicyParams } from './param-types.js';

export const PARAMS: PolicyParams = {
  "actionScale": 1,
  "home": [0, 0, 0.6, -1.2, 0.6, -0.5, 0.5, 0, 0, 0, 0, -0.6, 1.2, -0.6],
  "signs": {
    "hipPitchForward": 1,
    "hipRollLeft": -1,
    "hipRollRight": -1,
    "hipYawLeft": 1,
    "hipYawRight": 1
  },
  "stance": {
    "crouch": 0.0586,
    "splay": 0.0149,
    "lean": 0.0544
  },
  "balance": {
    "pitchHip": 0.202,
    "pitchHipRate": 0.023,
    "pitchAnkle": 0.5162,
    "pitchAnkleRate": 0.0306,
    "rollHip": 0.4926,
    "rollHipRate": 0.0583
  },
  "walk": {
    "period_s": 0.4464,
    "stepHeight": 0.1079,
    "stridePerVx": 1.3683,
    "lateralPerVy": 0.8,
    "yawPerVyaw": -0.15,
    "sway": -0.0654,
    "activity": {
      "vx": 10,
      "vy": 10,
      "vyaw": 3
    },
    "ranges": {
      "vx": [-0.2, 0.3],
      "vy": [-0.15, 0.15],
      "vyaw": [-1.5, 1.5]
    }
  },
  "turn": {
    "period_s": 0.3444,
    "stepHeight": 0.1375,
    "stridePerVx": 1.2,
    "lateralPerVy": 0.8,
    "yawPerVyaw": -0.19,
    "sway": -0.193,
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
    "duration_s": 0.6557,
    "shift": -0.1158,
    "shiftRamp": 2.8236,
    "lift": 0,
    "windBack": 0.3674,
    "swing": 1,
    "kneeExtend": 0.4678
  }
};
