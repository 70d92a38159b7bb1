/**
 * What a microduck:feetech or microduck:dynamixel robot is configured with (the fleet's `robots:`
 * section, or --port/--baud): apart from the body so the catalog reads it without serialport.
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { _default } from '../../../zod-mini.js';
import { numberSetting } from '../../../config/number-setting.js';
import { ImuSettingsSchema } from '../../../imu/settings.js';
import { PolicySlotsSchema } from '../../../policy/slots.js';
import { busHeadingHoldSetting } from '../heading-hold-setting.js';
import type { ProtocolName } from '../../../servo-bus/packet.js';
import { JointRowSchema, jointTableProblem } from './joint-table.js';

export const BUS_BAUD = 1_000_000;

export const servoBusSettings = z
  .object({
    /** The bus adapter, best a stable /dev/serial/by-id/… path. */
    port: z.string().min(1, 'a serial port path, e.g. /dev/serial/by-id/usb-…-if00'),
    baud: _default(numberSetting({ example: BUS_BAUD, int: true, positive: true }), BUS_BAUD),
    /** The joint table (joint-table.ts): the model's default otherwise. */
    /** Silence allowed after a reply's wire time before a servo is called silent, ms (one retry follows). */
    bus_timeout_ms: _default(numberSetting({ example: 10, positive: true, max: 1000 }), 10),
    joints: z.array(JointRowSchema).optional(),
    policies: PolicySlotsSchema.optional(),
    /** How a straight walk keeps its heading (heading-hold-setting.ts): `false` for none. */
    heading_hold: busHeadingHoldSetting,
    after_fall: z.enum(['limp', 'hold']).optional(),
    /**
     * The trunk's BNO055 on I²C (src/imu/settings.ts; defaults the Open Duck Mini v2's). Without
     * an IMU the motion verbs are refused.
     */
    imu: z.optional(ImuSettingsSchema),
    /**
     * SIMULATION ONLY: a file a simulator rewrites with the trunk's IMU reading (sim-imu.ts),
     * read directly, or with `imu` through a simulated BNO055's registers (trunk-imu.ts).
     */
    sim_imu: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((s, ctx) => {
    const problem = s.joints !== undefined ? jointTableProblem(s.joints) : undefined;
    if (problem !== undefined) ctx.addIssue({ code: 'custom', path: ['joints'], message: problem });
  });
export type ServoBusSettings = z.infer<typeof servoBusSettings>;

export function busPortPresent(settings: Readonly<Record<string, unknown>>): boolean {
  const port = settings['port'];
  return typeof port === 'string' && existsSync(port);
}

export const BUS_VERBS = ['torque', 'walk', 'turn', 'kick', 'quack'] as const;
export const BUS_REFUSED: Readonly<Record<string, string>> = { quack: 'needs a speaker, which the servo bus does not carry' };
export const BUS_METRICS = ['tilt_deg', 'torque', 'bus_timeouts', 'bus_damaged'] as const;

/** The body key's protocol, or undefined for a body that is not a servo-bus duck. */
export function busProtocolOf(key: string): ProtocolName | undefined {
  return key === 'microduck:feetech' ? 'feetech' : key === 'microduck:dynamixel' ? 'dynamixel' : undefined;
}

export const busKey = (protocol: ProtocolName): `microduck:${ProtocolName}` => `microduck:${protocol}`;
