/**
 * What a microduck:jsonrpc robot is configured with (the fleet's `robots:` section, or
 * --port/--baud) and what it can do: the one list of its verbs, read by the catalog and by the
 * body. Apart from the body so the catalog can use them without loading serialport.
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { _default } from '../../../zod-mini.js';
import { numberSetting } from '../../../config/number-setting.js';
import { DEFAULT_BAUD } from '../../../bridge/baud.js';
import { CameraSettingsSchema } from '../../../camera/settings.js';
import { PolicySlotsSchema } from '../../../policy/slots.js';
import type { BodyKey } from '../../body.js';
import { headingHoldSetting } from '../heading-hold-setting.js';

export const JSONRPC_KEY: BodyKey = 'microduck:jsonrpc';

export const jsonRpcSettings = z
  .object({
    /** The serial device, best a stable /dev/serial/by-id/… path. */
    port: z.string().min(1, 'a serial port path, e.g. /dev/serial/by-id/usb-…-if00'),
    // A flag's text and the file's number mean the same: "115200" and 115200.
    baud: _default(numberSetting({ example: DEFAULT_BAUD, int: true, positive: true }), DEFAULT_BAUD),
    /** Folders for the policy slots (walk, turn, stand, kick_left, kick_right); the bundled ones otherwise. */
    policies: PolicySlotsSchema.optional(),
    /** How a straight walk keeps its heading (heading-hold-setting.ts): `false` for none. */
    heading_hold: headingHoldSetting,
    /** After a fall: torque off, confirmed by the firmware (limp, the default), or keep the last pose (hold). */
    after_fall: z.enum(['limp', 'hold']).optional(),
    /** The duck's camera (src/camera): `snapshot` reads it, and search_scan looks through it after each of its turns. */
    camera: CameraSettingsSchema.optional(),
  })
  .strict();

/** Whether the robot's serial device is here now (a stat, nothing opened): a cable out, a duck charging elsewhere say no. */
export function portPresent(settings: Readonly<Record<string, unknown>>): boolean {
  const port = settings['port'];
  return typeof port === 'string' && existsSync(port);
}

/** Verbs a .duck may name for this body. */
export const JSONRPC_VERBS = ['quack', 'torque', 'walk', 'turn', 'kick', 'search_scan'] as const;

/** Those of them the body refuses, with why (the catalog's `pending`: a duck that needs one is refused), unless its settings give what they need. */
export const REFUSED: Readonly<Record<string, string>> = { search_scan: 'needs a camera: setting (the bridge carries no camera)' };
