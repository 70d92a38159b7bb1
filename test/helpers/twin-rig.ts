/**
 * What the twin rigs share (the servo-bus simulator's twin, the host firmware's): the MuJoCo twin
 * stepped on the wall clock on the goals its servos were last told (wall-clock.ts), what it
 * publishes after each step, and where its trunk is for a test to read.
 */
import type { MujocoPlant } from '../../src/bodies/microduck/mujoco/plant.js';
import { WallClockStepper } from './wall-clock.js';

/** One control period of the twin: the duck's 50 Hz. */
export const TWIN_PERIOD_S = 0.02;

export abstract class TwinRig {
  private readonly clock: WallClockStepper;

  protected constructor(
    readonly plant: MujocoPlant,
    /** The goals the twin's servos step on, filled in place as the rig's servos are told new ones. */
    protected readonly goals: Float64Array,
  ) {
    this.clock = new WallClockStepper(
      TWIN_PERIOD_S * 1000,
      () => {
        plant.send(goals);
        plant.advance(TWIN_PERIOD_S);
      },
      () => this.publish(),
      () => this.takeGoals(),
    );
  }

  /** The twin's joints and IMU to where the body reads them, after each step. */
  protected abstract publish(): void;

  /** New goals, before the periods due are stepped (a rig told them by callback has none to take). */
  protected takeGoals(): void {}

  protected run(): void {
    this.publish();
    this.clock.start();
  }

  protected stopClock(): void {
    this.clock.stop();
  }

  /** Where the twin's trunk is now. */
  trunk(): ReturnType<MujocoPlant['trunk']> {
    return this.plant.trunk();
  }
}
