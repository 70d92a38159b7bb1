/**
 * What every body of the lookout room shares: the run's room (what was seen, what reports held)
 * and its metrics, and verbs that act at once, so nothing is ever in motion to stop.
 */
import type { Metrics } from '../body.js';
import { LookoutRoom } from './lookout-room.js';
import type { Thing } from './room.js';

export abstract class RoomBody {
  protected readonly room: LookoutRoom;

  constructor(things: readonly Thing[]) {
    this.room = new LookoutRoom(things);
  }

  metrics(): Metrics {
    return this.room.metrics();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
