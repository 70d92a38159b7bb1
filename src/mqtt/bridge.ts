/**
 * The bridge's topics about itself that a zigbee2mqtt user expects beside bridge/state and
 * bridge/health: bridge/info (retained), bridge/logging, bridge/event, and the answer to
 * bridge/request/restart. The front door owns the link and the fleet; this says what to publish.
 */
import { InputError } from '../errors.js';
import { tapLogs } from '../log.js';
import type { RobotStatus } from '../service/api.js';
import { buildCommit, buildStamp } from '../service/build.js';
import type { RestartRequest } from '../service/restart.js';
import type { EventBus } from '../runtime/events.js';
import { reachable } from '../runtime/robot-status.js';
import { VERSION } from '../version.js';
import { Availability, runEnded, runStarted, type BridgeEvent } from './bridge-event.js';
import { bridgeInfo } from './bridge-info.js';
import { loggingPayload } from './bridge-logging.js';
import type { Publisher } from './publisher.js';
import type { MqttSettings } from './settings.js';
import type { Topics } from './topics.js';

export interface BridgeOptions {
  /** `bridge/request/restart` (absent: the request is refused). */
  readonly restart?: RestartRequest;
  /** For `bridge/info`: the config file and its content without secrets (bridge-info.ts publicConfig). */
  readonly config?: { readonly file: string; readonly content: Readonly<Record<string, unknown>> };
}

export interface BridgeContext {
  readonly publisher: Publisher;
  readonly topics: Topics;
  readonly settings: MqttSettings;
  readonly options: BridgeOptions;
  /** The log level the service logs at (bridge/info's log_level). */
  readonly logLevel: string;
  /** The robots the door publishes, as last heard. */
  robots(): readonly RobotStatus[];
  /** The broker as a person reads it (the embedded one's port known once it listens). */
  broker(): string;
}

export class BridgeTopics {
  private readonly availability = new Availability();
  private readonly build = { version: VERSION, build: buildStamp(), commit: buildCommit() };

  constructor(private readonly ctx: BridgeContext) {}

  /** bridge/info, retained; the Publisher sends it only when it changed. */
  publishInfo(): void {
    const { ctx, build } = this;
    const facts = {
      version: build.version,
      build: build.build,
      ...(build.commit !== undefined ? { commit: build.commit } : {}),
      logLevel: ctx.logLevel,
      mqtt: { server: ctx.broker(), version: ctx.settings.version, baseTopic: ctx.settings.baseTopic },
      ...(ctx.options.config !== undefined ? { configFile: ctx.options.config.file, config: ctx.options.config.content } : {}),
    };
    ctx.publisher.retain(ctx.topics.bridgeInfo, JSON.stringify(bridgeInfo(facts, ctx.robots())));
  }

  /** Where each robot is when the door starts: no event for those. */
  know(status: RobotStatus): void {
    this.availability.know(status.robot, reachable(status));
  }

  /** A robot's new status: a robot that came online or went offline is an event, said as it happens. */
  statusChanged(status: RobotStatus): void {
    const event = this.availability.change(status.robot, status.key, reachable(status));
    if (event !== undefined) this.send(event);
  }

  /** bridge/logging and the runs' bridge/event from now on; returns what stops each. */
  listen(events: EventBus, tracked: (robot: string) => boolean): (() => void)[] {
    const { publisher, topics } = this.ctx;
    return [
      tapLogs((line) => {
        const entry = loggingPayload(line);
        if (entry !== undefined) publisher.send(topics.bridgeLogging, JSON.stringify(entry));
      }),
      events.on('run:start', (e) => {
        if (tracked(e.robot)) this.send(runStarted(e));
      }),
      events.on('run:end', (e) => {
        if (tracked(e.robot)) this.send(runEnded(e));
      }),
    ];
  }

  /**
   * bridge/request/restart: `{}` once the restart is asked for, carried out after the answer is
   * published (respond() publishes it as the command's promise settles, before an immediate);
   * refused where nothing would start the service again.
   */
  restart(): Record<string, never> {
    const r = this.ctx.options.restart;
    const why = r === undefined ? 'this service cannot restart itself' : r.refusal();
    if (r === undefined || why !== undefined) throw new InputError(why ?? 'this service cannot restart itself');
    setImmediate(() => r.request('a restart request over MQTT'));
    return {};
  }

  private send(event: BridgeEvent): void {
    // A robot joined or left, a run started or ended: among what matters.
    this.ctx.publisher.send(this.ctx.topics.bridgeEvent, JSON.stringify(event), 0, true);
  }
}
