/**
 * The MuJoCo twin behind a servo simulator paced at the bus's baud, in a process of its own at the
 * rig's priority, as the servos' own chips are (test/helpers/servo-twin-process.ts): what a
 * servo-bus duck (`microduck:feetech`, `microduck:dynamixel`) talks to in a bench, and the robot
 * config that points it there.
 */
import { ServoTwinProcess } from '../test/helpers/servo-twin-process.js';

export type BusProtocol = 'feetech' | 'dynamixel';

export interface ServoTwinRig {
  /** The robot's settings: body, port, the twin's IMU (through the simulated BNO055 on feetech), as a config holds them. */
  readonly robot: { readonly body: string; readonly port: string; readonly sim_imu: string; readonly imu?: Record<string, never>; readonly bus_timeout_ms: number };
  /** The same, as one YAML flow mapping. */
  readonly yaml: string;
  /** Where the twin's trunk is now. */
  trunk: ServoTwinProcess['trunk'];
  stop(): Promise<void>;
}

/** `seed`: sim2d's layout of the room the twin stands in (where the duck stands and faces). */
export async function servoTwinProcess(protocol: BusProtocol, baud = 1_000_000, seed?: number): Promise<ServoTwinRig> {
  const twin = await ServoTwinProcess.start({ protocol, baud, ...(seed !== undefined ? { seed } : {}) });
  const robot = { body: `microduck:${protocol}`, port: twin.port, sim_imu: twin.imuPath, ...(protocol === 'feetech' ? { imu: {} } : {}), bus_timeout_ms: 100 };
  return { robot, yaml: JSON.stringify(robot), trunk: () => twin.trunk(), stop: () => twin.close() };
}
