/**
 * What a microduck:feetech or microduck:dynamixel robot is configured with (the fleet's `robots:`
 * section, or --port/--baud): apart from the body so the catalog reads it without serialport.
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { PolicySlotsSchema } from '../../../policy/slots.js';
import type { ProtocolName } from '../../../servo-bus/packet.js';
import { JointRowSchema, jointTableProblem } from './joint-table.js';

export const BUS_BAUD = 1_000_000;

export const servoBusSettings = z
  .object({
    /** The bus adapter, best a stable /dev/serial/by-id/… path. */
    port: z.string().min(1, 'a serial port path, e.g. /dev/serial/by-id/usb-…-if00'),
    baud: z.coerce.number().int().positive().default(BUS_BAUD),
    /** The joint table (joint-table.ts): the model's default otherwise. */
    /** Silence allowed after a reply's wire time before a servo is called silent, ms (one retry follows). */
    bus_timeout_ms: z.coerce.number().positive().max(1000).default(10),
    joints: z.array(JointRowSchema).optional(),
    policies: PolicySlotsSchema.optional(),
    after_fall: z.enum(['limp', 'hold']).optional(),
    /**
     * SIMULATION ONLY: a file a simulator rewrites with the trunk's IMU reading (twin-imu.ts).
     * A real duck has no such file; its IMU (BNO055) is not built yet, and without one the
     * motion verbs are refused.
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
