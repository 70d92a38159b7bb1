/**
 * The MuJoCo twin behind a servo simulator paced at the bus's baud (test/helpers/servo-twin-main.ts),
 * in a process of its own at the rig's priority, as the servos' own chips are: what a servo-bus
 * duck (`microduck:feetech`, `microduck:dynamixel`) talks to in a bench, and the robot config that
 * points it there.
 */
import { spawn } from 'node:child_process';
import { asHardware } from '../test/helpers/hardware-priority.js';
import { live } from '../test/helpers/pty-pair.js';

export type BusProtocol = 'feetech' | 'dynamixel';

export interface ServoTwinProcess {
  /** The robot's settings: body, port, the twin's IMU (through the simulated BNO055 on feetech), as a config holds them. */
  readonly robot: { readonly body: string; readonly port: string; readonly sim_imu: string; readonly imu?: Record<string, never>; readonly bus_timeout_ms: number };
  /** The same, as one YAML flow mapping. */
  readonly yaml: string;
  stop(): void;
}

export async function servoTwinProcess(protocol: BusProtocol, baud = 1_000_000): Promise<ServoTwinProcess> {
  const main = new URL('../test/helpers/servo-twin-main.ts', import.meta.url).pathname;
  const child = live(spawn(...asHardware(process.execPath, ['--import', 'tsx', main, JSON.stringify({ protocol, baud })]), { stdio: ['pipe', 'pipe', 'inherit'] }));
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout?.setEncoding('utf8').once('data', (s: string) => resolve(s));
    child.once('exit', (code) => reject(new Error(`the servo twin exited ${code}`)));
  });
  const where = JSON.parse(line) as { port: string; imuPath: string };
  const robot = { body: `microduck:${protocol}`, port: where.port, sim_imu: where.imuPath, ...(protocol === 'feetech' ? { imu: {} } : {}), bus_timeout_ms: 100 };
  return { robot, yaml: JSON.stringify(robot), stop: () => void child.kill('SIGTERM') };
}
