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
    "crouch": 0.0508,
    "splay": 0.0199,
    "lean": 0.0454
  },
  "balance": {
    "pitchHip": 0.2281,
    "pitchHipRate": 0.0172,
    "pitchAnkle": 0.4641,
    "pitchAnkleRate": 0.0178,
    "rollHip": 0.4637,
    "rollHipRate": 0.0502
  },
  "walk": {
    "period_s": 0.4449,
    "stepHeight": 0.11,
    "stridePerVx": 1.4022,
    "lateralPerVy": 0.8,
    "yawPerVyaw": 0.15,
    "sway": -0.0722,
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
    "period_s": 0.311,
    "stepHeight": 0.1189,
    "stridePerVx": 1.2,
    "lateralPerVy": 0.8,
    "yawPerVyaw": -0.1658,
    "sway": -0.1568,
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
    "duration_s": 0.7231,
    "shift": -0.1767,
    "shiftRamp": 3.8226,
    "lift": 0,
    "windBack": 0.3454,
    "swing": 0.9522,
    "kneeExtend": 0.4932
  }
};
