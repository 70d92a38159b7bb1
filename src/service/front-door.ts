/**
 * A front door of the running service: the control socket, MQTT, later MCP. Each is started with
 * the service's API once the runtime is up, and stopped before the runtime closes (MQTT publishes
 * `offline` while the store is still open). A door may say how it is doing: a line for
 * `quackd status` (the broker's connection) and lines for `quackd health`.
 */
import type { HealthLine, ServiceApi } from './api.js';

/** One line a front door adds to `quackd status`, e.g. `broker  connected to mqtt://127.0.0.1:1883`. */
export interface DoorLine {
  readonly label: string;
  readonly value: string;
  /** false when the door is not doing its job (the broker is down); shown as a warning. */
  readonly ok: boolean;
}

export interface FrontDoor {
  readonly name: string;
  start(api: ServiceApi): Promise<void>;
  /** Told first when the service begins to stop, before the runs stop (sd_notify's STOPPING=1); `why`: `SIGTERM`. */
  stopping?(why: string): Promise<void>;
  /** Idempotent; stops every timer and connection the door made. */
  stop(): Promise<void>;
  status?(): readonly DoorLine[];
  health?(): readonly HealthLine[];
}
