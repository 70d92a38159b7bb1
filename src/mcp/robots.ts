/**
 * Which robot a tool call means: the one it names (a fleet name or a body key), else the only one
 * this server looks after; with several, a call must name one. `serve-mcp --robot` narrows the
 * server to one robot, and a call naming another is refused.
 */
import { InputError } from '../errors.js';
import type { RobotStatus } from '../service/api.js';
import type { Backend } from './backend.js';

export class RobotScope {
  constructor(
    private readonly backend: Backend,
    /** `--robot`, resolved: the one robot this server looks after. */
    private readonly only?: string,
  ) {}

  async list(): Promise<readonly RobotStatus[]> {
    return this.only !== undefined ? [await this.backend.status(this.only)] : this.backend.robots();
  }

  async pick(named: string | undefined): Promise<RobotStatus> {
    if (named === undefined) {
      const robots = await this.list();
      const [only, ...more] = robots;
      if (only !== undefined && more.length === 0) return only;
      throw new InputError(`name a robot: this server looks after ${robots.map((r) => r.robot).join(', ')}`, 'robot_list lists them');
    }
    const status = await this.backend.status(named);
    if (this.only !== undefined && status.robot !== this.only) throw new InputError(`this server looks after ${this.only} only (serve-mcp --robot ${this.only})`);
    return status;
  }
}
