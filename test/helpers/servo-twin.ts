/**
 * The servo-bus simulator whose servos are the MuJoCo twin's joints: the rig a microduck:feetech
 * or microduck:dynamixel body walks in through real packets. Goal positions the body writes
 * (ServoSim's onWrite) drive the twin's position servos; every 20 ms the twin steps one control
 * period and its joints' positions and velocities go back into the servos' registers, and its
 * trunk's gyro and gravity into the simulated IMU file the body reads (`sim_imu`; with an `imu`
 * block too, through a simulated BNO055's registers, which unplugImu makes fail and hangImu hang). It runs in a
 * process of its own (servo-twin-main.ts), which tests and benches reach through
 * servo-twin-process.ts, and holds its pty's master itself (held-pty.ts): no relay between the
 * body's port and the servos.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMujocoPlant, type MujocoPlant } from '../../src/bodies/microduck/mujoco/plant.js';
import { OPEN_DUCK_MINI_V2, jointAngle, servoAngle, type JointRow } from '../../src/bodies/microduck/servo-bus/joint-table.js';
import { SimImuWriter } from '../../src/bodies/microduck/servo-bus/sim-imu.js';
import { decodeRegister, encodeRegister, modelByName, type ServoModel } from '../../src/servo-bus/models.js';
import type { ProtocolName } from '../../src/servo-bus/packet.js';
import { TwinRig } from './twin-rig.js';
import { HeldPty } from './held-pty.js';
import { ServoSim } from './servo-sim.js';

export interface ServoTwinOptions {
  readonly protocol: ProtocolName;
  readonly joints?: readonly JointRow[];
  readonly seed?: number;
  /** Pace the simulator's replies at this baud (default: answer at once). */
  readonly baud?: number;
  /** Servos whose torque stays on whatever is written (a fault the body must name). */
  readonly torqueStuckOn?: readonly number[];
}

const MODEL: Record<ProtocolName, string> = { feetech: 'STS3215', dynamixel: 'XL330-M288' };

export class ServoTwin extends TwinRig {
  private readonly dir: string;
  readonly imuPath: string;
  /** What the simulated BNO055 fails with from now on (unplugImu), told through the file. */
  private imuError: string | undefined;
  /** Whether its reads hang from now on (hangImu), told through the file. */
  private imuHangs = false;
  /** The trunk's IMU, rewritten in place each step (sim-imu.ts). */
  private readonly imu: SimImuWriter;
  /** Goal positions written, counted: what reached the twin through real packets. */
  get goalWrites(): number {
    return this.written.goals;
  }

  /** Every goal written to joint `index` (policy order), rad, oldest first. */
  goalsOf(index: number): number[] {
    return this.written.each[index] ?? [];
  }

  private constructor(
    readonly pty: HeldPty,
    readonly sim: ServoSim,
    plant: MujocoPlant,
    readonly joints: readonly JointRow[],
    private readonly model: ServoModel,
    goals: Float64Array,
    private readonly written: { goals: number; each: number[][] },
  ) {
    super(plant, goals);
    this.dir = mkdtempSync(join(tmpdir(), 'quackd-twin-imu-'));
    this.imuPath = join(this.dir, 'imu.bin');
    this.imu = new SimImuWriter(this.imuPath);
  }

  static async start(options: ServoTwinOptions): Promise<ServoTwin> {
    const joints = options.joints ?? OPEN_DUCK_MINI_V2;
    const model = modelByName(MODEL[options.protocol]) as ServoModel;
    const plant = await openMujocoPlant({ seed: options.seed ?? 1 });
    const pty = await new HeldPty('quackd-servo-twin-').open();
    const start = plant.read();
    const goals = Float64Array.from(start?.jointPos ?? joints.map(() => 0));
    const r = model.registers;
    const index = new Map(joints.map((j, i) => [j.id, i]));
    const written = { goals: 0, each: joints.map((): number[] => []) };
    const sim = ServoSim.open(pty.far, {
      protocol: options.protocol,
      servos: joints.map((j) => ({ id: j.id, model: model.name })),
      ...(options.baud !== undefined ? { baud: options.baud } : {}),
      onWrite: (id, address, data) => {
        // onWrite runs after the write is stored: the servo sets itself back and keeps holding.
        if (address === r.torqueEnable.address && options.torqueStuckOn?.includes(id) === true) sim.table(id)[address] = 1;
        const i = index.get(id);
        if (i === undefined || address !== r.goalPosition.address || data.length < r.goalPosition.size) return;
        const counts = decodeRegister(r.goalPosition, data, model.byteOrder);
        const goal = jointAngle(joints[i] as JointRow, (counts - model.countsPerTurn / 2) * r.goalPosition.unit);
        goals[i] = goal;
        written.goals++;
        written.each[i]?.push(goal);
      },
    });
    const twin = new ServoTwin(pty, sim, plant, joints, model, goals, written);
    twin.run();
    return twin;
  }

  /** The near end of the pty: the body's --port. */
  get port(): string {
    return this.pty.near;
  }

  /** The IMU's wire comes loose: a body reading the simulated BNO055 (`imu` with `sim_imu`) sees every transfer fail. */
  unplugImu(reason = 'EREMOTEIO: remote I/O error'): void {
    this.imuError = reason;
  }

  /** The simulated BNO055 holds the bus's clock: from now on its reads never come back, with no error. */
  hangImu(): void {
    this.imuHangs = true;
  }


  /** The twin's joints into the servos' registers, its trunk's IMU into the file. */
  protected publish(): void {
    const f = this.plant.read();
    if (f === undefined) return;
    const r = this.model.registers;
    const centre = this.model.countsPerTurn / 2;
    const order = this.model.byteOrder;
    for (const [i, j] of this.joints.entries()) {
      const table = this.sim.table(j.id);
      const counts = centre + servoAngle(j, f.jointPos[i] ?? 0) / r.presentPosition.unit;
      table.set(encodeRegister(r.presentPosition, counts, order), r.presentPosition.address);
      table.set(encodeRegister(r.presentVelocity, (j.direction * (f.jointVel[i] ?? 0)) / r.presentVelocity.unit, order), r.presentVelocity.address);
    }
    this.imu.write({ gyro: f.gyro, gravity: f.gravity, accel: f.accel, i2c_error: this.imuError, i2c_hang: this.imuHangs });
  }

  async close(): Promise<void> {
    this.stopClock();
    this.sim.close();
    this.plant.close();
    await this.pty.close();
    this.imu.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
