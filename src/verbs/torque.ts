/**
 * The `torque` verb. Switch the joints' torque on (holding the pose) or off (limp). Off is a stop:
 * a gate on `torque` holds only on, as nothing ever holds an emergency stop.
 */
import { z } from 'zod';
import { defineVerb } from './verb.js';

export const torque = defineVerb({
  name: 'torque',
  kind: 'body',
  description: "Switch the motors' torque on (hold the current pose) or off (go limp).",
  input: z.object({ on: z.boolean() }).strict(),
  label: (a) => `torque ${a.on ? 'on' : 'off'}`,
  stops: (a) => !a.on,
});
