/**
 * The MQTT front door: the fleet's state, availability and events out, commands in, Home
 * Assistant discovery, in zigbee2mqtt's conventions. Written against ServiceApi and the event bus
 * only. A robot's state goes out when it changes past its deadbands (deadband.ts); the bridge's
 * topics about itself (info, logging, events, restart) are bridge.ts's. Nothing here makes a
 * caller wait: bus listeners hand messages to the Publisher and return; a broker that is down at
 * boot or goes away later is retried in the background with backoff, said once per change of
 * state, and every retained message is sent again when it comes back.
 */
import { AsyncResource } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import { logger } from '../log.js';
import type { RobotStatus, ServiceApi } from '../service/api.js';
import type { RuntimeEvents } from '../runtime/events.js';
import { byText, clientWords } from '../runtime/holder.js';
import { printable } from '../text/printable.js';
import { startEmbeddedBroker, type EmbeddedBroker, type Sender } from './broker.js';
import type { BrokerLogin } from './broker-acl.js';
import { SHARE_TOPIC } from '../memory/share/wire.js';
import { HA_LOGIN, MQTT_RIGHTS, SERVICE_USER } from './config.js';
import { ensureCredentials } from './credentials.js';
import { InputError } from '../errors.js';
import { BridgeTopics, type BridgeOptions } from './bridge.js';
import { reachable } from '../runtime/robot-status.js';
import { bridgeHealth } from './bridge-health.js';
import { Coalescer } from './coalesce.js';
import { answer, errorLine, execute, parseRequest, parseSet, refusal, rightRefusal, type Answer, type Command, type MqttAsker, type Parsed } from './commands.js';
import { beyondDeadband } from './deadband.js';
import { credentials, describeBroker, hostPort, type MqttSettings } from './settings.js';
import { bridgeDiscovery, isOurDiscoveryTopic, robotDiscovery, type DiscoveryContext } from './discovery.js';
import { recordBrokerName } from './discovery-record.js';
import { BrokerLedger } from './broker-ledger.js';
import { gateEvent, robotState } from './robot-state.js';
import { Publisher, type PublisherLimits, type PublisherStats } from './publisher.js';
import { brokerRefusal } from './refusal.js';
import { mosquittoAclHint, probeAnonymous, probeNonce, PROBE_REQUEST } from './anonymous-check.js';
import { CommandRateLimit, type RateLimitSettings } from './rate-limit.js';
import { parseIncoming, RESERVED_ROBOT_NAMES, topicsFor } from './topics.js';
import type { BodyEntry } from '../bodies/index.js';

export type MqttLinkState = 'off' | 'connecting' | 'online' | 'offline' | 'stopped';

export interface MqttDoorStatus extends PublisherStats {
  readonly name: 'mqtt';
  readonly state: MqttLinkState;
  readonly broker: string;
  /** Why MQTT is off, or the broker's last error while offline. */
  readonly reason?: string;
  /**
   * An external broker tried as a stranger at start (anonymous-check.ts): `open` when a client
   * with no login could command the robots; absent for the embedded broker (it has no anonymous).
   */
  readonly anonymous?: 'refused' | 'open' | 'checking' | `unknown: ${string}`;
}

export interface MqttFrontDoor {
  readonly name: 'mqtt';
  /** Never fails for a broker that is down or a port that is taken: it says so and goes on. */
  start(): Promise<void>;
  /** Publishes offline (bridge and robots), then disconnects; returns within the stop deadline. */
  stop(): Promise<void>;
  status(): MqttDoorStatus;
}

export interface MqttDoorOptions extends BridgeOptions {
  /** First wait before reconnecting; it doubles on each failure up to reconnectMaxMs. */
  readonly reconnectMinMs?: number;
  readonly reconnectMaxMs?: number;
  readonly connectTimeoutMs?: number;
  /** stop() waits at most this long for the broker to take the offline messages. */
  readonly stopDeadlineMs?: number;
  readonly limits?: PublisherLimits;
  /** Commands a client may give (rate-limit.ts). */
  readonly commandRate?: RateLimitSettings;
  /**
   * Where the embedded broker's logins are kept (credentials.ts; required for the embedded broker),
   * and the record of the Home Assistant entities announced (discovery-record.ts).
   */
  readonly dataDir?: string;
  /** The group that may read them too (0640): the control socket's. */
  readonly credentialsGroup?: string;
  /** Fleet memory's root topic (memory.share_topic), which only logins with the memory right use. */
  readonly memoryTopic?: string;
  /** The starters a body can run, for HA's buttons (default: the bundled starters that fit). */
  readonly starters?: (body: BodyEntry) => string[];
}

/** Gets for unknown robots are said in the log at most this often; the next line counts those not said (`more`). */
const UNKNOWN_GET_GAP_MS = 1000;

/** A command over the rate limit already refused in this window: nothing is sent back. */
const UNANSWERED = Symbol('unanswered');

const DEFAULTS = { reconnectMinMs: 1000, reconnectMaxMs: 30_000, connectTimeoutMs: 10_000, stopDeadlineMs: 2000 };

/** Events on `<base>/<robot>/event`, in the order a run has them. */
const EVENTS = ['run:start', 'run:step', 'run:gate', 'run:end', 'memory:saved'] as const;
type EventName = (typeof EVENTS)[number];

function eventPayload<K extends EventName>(name: K, e: RuntimeEvents[K]): Record<string, unknown> {
  // A gate's question as data, not as the terminal's step line (robot-state.ts).
  const fields = name === 'run:gate' ? gateEvent(e as RuntimeEvents['run:gate']) : e;
  const { robot: _robot, ...rest } = fields as RuntimeEvents[K] & { robot: string };
  const type = { 'run:start': 'run_started', 'run:step': 'step', 'run:gate': 'gate', 'run:end': 'run_ended', 'memory:saved': 'memory_saved' }[name];
  return { type, ...rest, at: new Date().toISOString() };
}

export function createMqttFrontDoor(settings: MqttSettings, api: ServiceApi, options: MqttDoorOptions = {}): MqttFrontDoor {
  const opts = { ...DEFAULTS, ...options };
  const log = logger('mqtt');
  const topics = topicsFor(settings.baseTopic);
  // What we left at this broker, and at those of earlier starts (broker-ledger.ts). The embedded
  // broker is one whatever its port: what is owed there is owed to the HA that followed it.
  const ledger = new BrokerLedger(options.dataDir, settings.broker.kind === 'external' ? recordBrokerName(describeBroker(settings)) : 'embedded', settings.broker.kind === 'external');
  const publisher = new Publisher(options.limits, (topic, payload) => ledger.taken(topic, payload));
  const robots = new Map<string, RobotStatus>();
  const refused = new Set<string>();
  const rate = new CommandRateLimit(options.commandRate);
  // On the embedded broker quackd keeps HA's login, and so knows what its buttons may do.
  const haMay = settings.broker.kind === 'embedded' ? settings.users[HA_LOGIN]?.may : undefined;
  const ha: DiscoveryContext = { base: settings.baseTopic, prefix: settings.homeassistant.discoveryPrefix, topics, canSwitchTorque: api.torque !== undefined, ...(api.ducks !== undefined ? { ducks: (robot: string) => api.ducks?.(robot) ?? [] } : {}), ...(haMay !== undefined ? { haMay } : {}) };
  let discoveryTopics = new Set<string>();
  /** Config topics of ours that are no more, cleared at start and again when HA comes online (it may not have been there). */
  const gone = new Set<string>();
  let state: MqttLinkState = 'stopped';
  let reason: string | undefined;
  /** The broker turned us down (a login, a certificate), as opposed to not answering. */
  let turnedDown = false;
  let brokerName = describeBroker(settings);
  let client: MqttClient | undefined;
  let broker: EmbeddedBroker | undefined;
  /** The service's own password at the embedded broker. */
  let ownLogin: string | undefined;
  let anonymous: MqttDoorStatus['anonymous'];
  /** The stranger's probe, while it may still arrive. */
  let probe: string | undefined;

  /** Once, when first connected to an external broker: could a client with no login command it? */
  const tryAsStranger = (url: string): void => {
    if (anonymous !== undefined) return;
    anonymous = 'checking';
    const tls = settings.tls;
    probe = probeNonce();
    void probeAnonymous(url, topics.bridgeRequest(PROBE_REQUEST), probe, { ...(tls?.ca !== undefined ? { ca: tls.ca } : {}), ...(tls !== undefined ? { rejectUnauthorized: tls.rejectUnauthorized } : {}) }, settings.version).then((r) => {
      if (r.kind === 'refused') anonymous = 'refused';
      else if (r.kind === 'unknown') anonymous = `unknown: ${printable(r.why)}`;
      else {
        // Heard by then, or the broker kept it from us: confined.
        setTimeout(() => (anonymous === 'checking' ? (anonymous = 'refused') : undefined), 2000).unref();
      }
    });
  };
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;
  let health: NodeJS.Timeout | undefined;
  let stopping = false;
  let startedAt = Date.now();
  const listeners: (() => void)[] = [];

  const setState = (next: MqttLinkState, why?: string): void => {
    reason = why;
    if (next === state) return;
    const was = state;
    state = next;
    // Once per change, never per retry: a broker down all night is one line.
    if (next === 'online') log.info({ broker: brokerName }, was === 'offline' ? 'reconnected to the MQTT broker' : 'connected to the MQTT broker');
    else if (next === 'offline') log.warn({ broker: brokerName, reason: why }, turnedDown ? 'MQTT broker turned us down; retrying in the background, state waits' : 'MQTT broker unreachable; retrying in the background, state waits');
  };

  const memoryTopic = options.memoryTopic ?? SHARE_TOPIC;
  /** Why a robot's name cannot be its topic level: the bridge's, fleet memory's, or no level at all. */
  const clash = (name: string): string | undefined => {
    if (RESERVED_ROBOT_NAMES.includes(name) || !/^[^/+#\s\0]{1,64}$/.test(name)) return 'its name cannot be a topic of its own (bridge, /, +, #)';
    const own = `${settings.baseTopic}/${name}`;
    if (own === memoryTopic || memoryTopic.startsWith(`${own}/`)) return `${own} is fleet memory's topic (memory.share_topic): rename the robot, or move the share topic`;
    return undefined;
  };

  /** Only names that make one topic level of their own, and not the bridge's or fleet memory's. */
  const track = (status: RobotStatus): boolean => {
    const name = status.robot;
    const why = clash(name);
    if (why !== undefined) {
      if (!refused.has(name)) log.warn({ robot: printable(name) }, `robot left out of MQTT: ${why}`);
      refused.add(name);
      return false;
    }
    const fresh = !robots.has(name);
    robots.set(name, status);
    if (fresh && state !== 'stopped') publishDiscovery();
    return true;
  };

  /** Each robot's state as last published: a new one within the deadbands (deadband.ts) is not sent. */
  const published = new Map<string, RobotStatus>();
  const bridge = new BridgeTopics({ publisher, topics, settings, options, logLevel: log.level, robots: () => [...robots.values()], broker: () => brokerName });

  const publishState = (status: RobotStatus, force = false): void => {
    const last = published.get(status.robot);
    if (!force && last !== undefined && !beyondDeadband(last, status)) return;
    published.set(status.robot, status);
    publisher.retain(topics.robotState(status.robot), JSON.stringify(robotState(status)), force);
    publisher.retain(topics.robotAvailability(status.robot), reachable(status) ? 'online' : 'offline', force);
  };
  // A get rides the same rate as the state it asks for (`asked`: published whatever the deadbands
  // say): a client asking in a loop gets at most state_hz publishes a second per robot, the gets
  // that came while one was held back answered together by it.
  const states = new Coalescer<{ readonly status: RobotStatus; readonly asked: boolean }>(
    settings.stateHz,
    (_name, { status, asked }) => publishState(status, asked),
    (held, next) => ({ status: next.status, asked: held.asked || next.asked }),
  );

  const publishDiscovery = (force = false): void => {
    const next = new Set<string>();
    if (settings.homeassistant.enabled) {
      for (const m of [...bridgeDiscovery(ha), ...[...robots.values()].flatMap((s) => robotDiscovery(s, ha, options.starters))]) {
        next.add(m.topic);
        publisher.retain(m.topic, JSON.stringify(m.payload), force);
      }
    }
    // Entities of a robot (or a starter) that is gone, now or at an earlier start (the record): cleared, so HA removes them.
    for (const topic of discoveryTopics) if (!next.has(topic)) gone.add(topic);
    for (const topic of next) gone.delete(topic);
    for (const topic of gone) publisher.retain(topic, '', force);
    discoveryTopics = next;
    ledger.announced(discoveryTopics, gone);
    publisher.retain(topics.bridgeDevices, JSON.stringify({ robots: [...robots.keys()], discovery: [...next] }));
    bridge.publishInfo();
  };

  /** Gets for robots we do not know since the last one said, and when that was: said at most once a second. */
  const unknownGets = { unsaid: 0, saidAt: -Infinity };

  /** `<robot>/get`: the robot's state now, published again whatever the deadbands say (zigbee2mqtt's get), at the state's rate. */
  // Any payload asks for the state (zigbee2mqtt's `{"state": ""}`, none, or more): it is never read.
  const answerGet = (robot: string): void => {
    if (!robots.has(robot)) {
      // zigbee2mqtt says so in its log (and so on bridge/logging): a get has no response topic.
      // A client asking in a loop would be a line each, a flood of our own on bridge/logging.
      const now = Date.now();
      if (now - unknownGets.saidAt < UNKNOWN_GET_GAP_MS) {
        unknownGets.unsaid++;
        return;
      }
      const more = unknownGets.unsaid > 0 ? { more: unknownGets.unsaid } : {};
      unknownGets.unsaid = 0;
      unknownGets.saidAt = now;
      log.warn({ robot: printable(robot), ...more }, `get for an unknown robot; known: ${[...robots.keys()].join(', ') || 'none'}`);
      return;
    }
    let status = robots.get(robot);
    try {
      // The board's newest, not the last offered to the rate limit.
      status = api.status(robot);
      robots.set(robot, status);
    } catch {
      // A robot the service no longer knows: what we last heard of it.
    }
    if (status !== undefined) states.offer(robot, { status, asked: true });
  };

  /** The device list a previous quackd left retained: what it published that we no longer do is cleared. */
  const forgetOld = (payload: Buffer): void => {
    let old: unknown;
    try {
      old = JSON.parse(payload.toString('utf8'));
    } catch {
      return;
    }
    if (typeof old !== 'object' || old === null) return;
    const { robots: oldRobots, discovery } = old as { robots?: unknown; discovery?: unknown };
    for (const topic of Array.isArray(discovery) ? discovery : []) {
      if (typeof topic === 'string' && !discoveryTopics.has(topic) && isOurDiscoveryTopic(topic, ha)) publisher.retain(topic, '');
    }
    for (const name of Array.isArray(oldRobots) ? oldRobots : []) {
      if (typeof name !== 'string' || robots.has(name) || clash(name) !== undefined) continue;
      publisher.retain(topics.robotState(name), '');
      publisher.retain(topics.robotAvailability(name), '');
    }
  };

  /** Answers on `topic`: a refusal at once for a bad payload, else what the command returned or why it failed. */
  const respond = <T>(topic: string, parsed: Parsed<T>, run: (value: T) => Promise<Answer['data']>): void => {
    const tx = parsed.transaction;
    if (!parsed.ok) {
      log.debug({ topic, error: parsed.error }, 'refused an MQTT command');
      publisher.send(topic, JSON.stringify(refusal(parsed.error, tx)), 1);
      return;
    }
    run(parsed.value).then(
      // A command carried out: its answer matters to whoever gave it; a refusal can wait its turn.
      (data) => publisher.send(topic, JSON.stringify(answer(data, tx)), 1, true),
      (err: unknown) => {
        if (err === UNANSWERED) return;
        const line = errorLine(err);
        if (line.startsWith('internal error')) log.warn({ topic, err }, 'an MQTT command failed');
        publisher.send(topic, JSON.stringify(refusal(line, tx)), 1);
      },
    );
  };

  const onMessage = (topic: string, payload: Buffer, retained: boolean): void => {
    const incoming = parseIncoming(settings.baseTopic, topic).kind;
    // The embedded broker hands commands over itself (onCommand), with who sent them.
    if (broker !== undefined && incoming !== 'other') return;
    if (retained && incoming !== 'other') {
      // Kept on the broker (Node-RED's or HA's retain switch), not sent now: carried out, it would run
      // again at every start and every reconnect, a robot moving because a service started.
      const shown = printable(topic);
      log.warn({ topic: shown }, `ignored a command left retained on ${shown}: a command acts once, when sent (clear it: mosquitto_pub -r -n -t '${shown}')`);
      return;
    }
    if (topic === settings.homeassistant.statusTopic) {
      // HA's birth message: it (re)started and needs discovery (and states) again.
      if (settings.homeassistant.enabled && payload.toString('utf8').trim() === 'online') {
        publishDiscovery(true);
        for (const s of robots.values()) publishState(s, true);
      }
      return;
    }
    if (topic === topics.bridgeDevices) {
      forgetOld(payload);
      return;
    }
    onCommand(topic, payload, undefined);
  };

  /** A robot's set or get, or a bridge request; `sender` as the embedded broker says, undefined from another broker. */
  const onCommand = (topic: string, payload: Buffer, sender: Sender | undefined): void => {
    const incoming = parseIncoming(settings.baseTopic, topic);
    if (incoming.kind === 'other') return;
    if (incoming.kind === 'request' && incoming.command === PROBE_REQUEST) {
      // Our own stranger's probe arrived: anyone could have sent a command. Never answered.
      if (probe !== undefined && payload.toString('utf8').includes(probe)) {
        anonymous = 'open';
        log.warn({ broker: brokerName }, `an MQTT client with no login can command the robots through this broker; ${mosquittoAclHint(settings.baseTopic, settings.username)}`);
      }
      return;
    }
    const known = new Set(robots.keys());
    const asker = askerOf(sender);
    /** The login's rights first: a command it may not give is refused, and said in the log (a forged gate answer is worth knowing of). */
    const checked = (command: Command, run: () => Promise<Answer['data']>): Promise<Answer['data']> => {
      const why = rightRefusal(command, asker, asker.user);
      if (why !== undefined) {
        log.warn({ by: byText(asker.by), command: command.kind }, `refused an MQTT command: ${why}`);
        return Promise.reject(new InputError(why));
      }
      // An emergency stop is never held back by a flood, its sender's own included.
      const verdict = command.kind === 'stop' ? undefined : rate.take(asker.key, Date.now());
      if (verdict === undefined || verdict.kind === 'ok') return run();
      if (verdict.kind === 'drop') return Promise.reject(UNANSWERED);
      log.warn({ by: byText(asker.by) }, 'MQTT commands over the rate limit: not carried out until the client slows down');
      return Promise.reject(new InputError(verdict.message));
    };
    if (incoming.kind === 'set') {
      respond(topics.robotSetResponse(incoming.robot), parseSet(payload), (command) => checked(command, () => execute(api, command, incoming.robot, known, asker)));
    } else if (incoming.kind === 'get') {
      answerGet(incoming.robot);
    } else if (incoming.kind === 'request') {
      respond(topics.bridgeResponse(incoming.command), parseRequest(incoming.command, payload), (r) => checked(r.command, () => execute(api, r.command, r.robot, known, asker, () => bridge.restart())));
    }
  };

  /**
   * Who sent a command: on the embedded broker its login and client id, with the login's rights,
   * and a gate answer is a person's when the login may confirm; another broker does not say who,
   * its own ACL decides what may arrive, and its answers are a person's only when the config says so.
   */
  const askerOf = (sender: Sender | undefined): MqttAsker & { readonly user: string; readonly key: string } => {
    // Another broker does not say who: its clients share one rate limit.
    if (sender === undefined) return { by: { door: 'mqtt', who: `client via ${brokerName}` }, may: 'all', confirmHow: settings.answersArePeople ? 'person' : 'channel', user: '?', key: '' };
    const may = sender.username === SERVICE_USER ? MQTT_RIGHTS : (settings.users[sender.username]?.may ?? []);
    return { by: { door: 'mqtt', who: `user ${clientWords(sender.username)} · client ${clientWords(sender.clientId)}` }, may, confirmHow: may.includes('confirm') ? 'person' : 'channel', user: clientWords(sender.username), key: sender.clientId };
  };

  const scheduleReconnect = (): void => {
    if (stopping || retry !== undefined || client === undefined) return;
    const delay = Math.min(opts.reconnectMaxMs, opts.reconnectMinMs * 2 ** Math.min(failures, 16));
    failures++;
    retry = setTimeout(() => {
      retry = undefined;
      if (!stopping) client?.reconnect();
    }, delay);
    retry.unref();
  };

  const connectClient = (url: string): void => {
    const clientOptions: IClientOptions = {
      protocolVersion: settings.version,
      clientId: settings.clientId ?? `quackd_${randomBytes(4).toString('hex')}`,
      clean: true,
      keepalive: 30,
      // Reconnects are ours (backoff with a cap); mqtt.js's own retry is a fixed period.
      reconnectPeriod: 0,
      connectTimeout: opts.connectTimeoutMs,
      // Nothing piles up inside mqtt.js while offline: the Publisher's bounded queue decides.
      queueQoSZero: false,
      resubscribe: false,
      // mqtt-packet's default pre-builds 65,536 two-byte Buffers (~7 MB of heap, held for the
      // process's life) to write packet ids faster; at a few messages a second one is made when
      // needed. The switch is mqtt-packet's, so the embedded broker (aedes) goes without it too.
      writeCache: false,
      will: { topic: topics.bridgeState, payload: Buffer.from('offline'), retain: true, qos: 1 },
      ...credentials(settings),
      // At the embedded broker, the service's own login (credentials.ts).
      ...(ownLogin !== undefined ? { username: SERVICE_USER, password: ownLogin } : {}),
    };
    const c = connect(url, clientOptions);
    client = c;
    c.on('connect', () => {
      // A stop command must not sit out Nagle's 40 ms: commands and answers are small packets.
      (c.stream as { setNoDelay?: (on: boolean) => void }).setNoDelay?.(true);
      failures = 0;
      turnedDown = false;
      setState('online');
      // The embedded broker hands the commands over itself: its client subscribes to the rest only.
      const commandFilters = broker === undefined ? [topics.robotSetFilter, topics.robotGetFilter, topics.bridgeRequestFilter] : [];
      const filters = [...commandFilters, topics.bridgeDevices, ...(settings.homeassistant.enabled ? [settings.homeassistant.statusTopic] : [])];
      // Subscribed before the retained messages go out: the broker hands back the previous device
      // list before it sees ours, so what that quackd published and we do not is cleared.
      c.subscribe(filters, { qos: 1 }, (err) => {
        if (err !== undefined && err !== null && !stopping) log.warn({ err }, 'MQTT subscribe failed: commands will not arrive until the next reconnect');
      });
      states.flush();
      publisher.connected(c);
      if (broker === undefined && !stopping) tryAsStranger(url);
    });
    c.on('close', () => {
      publisher.disconnected();
      if (stopping) return;
      setState('offline', reason ?? 'connection closed');
      scheduleReconnect();
    });
    c.on('error', (err) => {
      // Said by the state change that follows ('close'), not once per failed retry.
      const refusal = brokerRefusal(err);
      turnedDown = refusal !== undefined;
      reason = printable(refusal ?? err.message.split('\n')[0] ?? 'error');
    });
    c.on('message', (topic, payload, packet) => {
      try {
        onMessage(topic, payload, packet.retain);
      } catch (err) {
        log.warn({ err, topic }, 'an MQTT message could not be handled');
      }
    });
  };

  return {
    name: 'mqtt',
    async start() {
      if (state !== 'stopped' || stopping) return;
      startedAt = Date.now();
      for (const s of api.robots()) track(s);
      let url: string;
      if (settings.broker.kind === 'embedded') {
        try {
          const users = Object.keys(settings.users);
          // The caller's data directory (quackd serve's, from its invocation's environment): a
          // front door reads no environment of its own (test/invariants.test.ts).
          if (options.dataDir === undefined) throw new Error('the embedded broker needs a data directory for its logins, and none was given');
          const passwords = ensureCredentials(options.dataDir, [SERVICE_USER, ...users], options.credentialsGroup);
          ownLogin = passwords.get(SERVICE_USER);
          const logins = new Map<string, BrokerLogin>([[SERVICE_USER, { password: ownLogin ?? '', may: MQTT_RIGHTS }], ...users.map((u): [string, BrokerLogin] => [u, { password: passwords.get(u) ?? '', may: settings.users[u]?.may ?? [] }])]);
          const acl = { baseTopic: settings.baseTopic, serviceUser: SERVICE_USER, haStatusTopic: settings.homeassistant.statusTopic, memoryTopic };
          // Bound to the service's context (its log root), not the publishing client's socket's.
          const commands = AsyncResource.bind((topic: string, payload: Buffer, sender: Sender): void => {
            try {
              onCommand(topic, payload, sender);
            } catch (err) {
              log.warn({ err, topic }, 'an MQTT message could not be handled');
            }
          });
          broker = await startEmbeddedBroker(settings.broker.host, settings.broker.port, { logins, acl }, (t) => parseIncoming(settings.baseTopic, t).kind !== 'other', commands, options.commandRate);
        } catch (err) {
          state = 'off';
          reason = printable((err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '');
          log.warn({ reason }, 'MQTT is off: the embedded broker cannot start');
          return;
        }
        url = broker.url;
        brokerName = `embedded ${hostPort(settings.broker.host, broker.port)}`;
      } else {
        url = settings.broker.url;
      }
      // What earlier starts announced here, which this one may not: cleared once the fleet is known (publishDiscovery).
      for (const topic of ledger.open()) gone.add(topic);
      state = 'connecting';
      publisher.retain(topics.bridgeState, 'online');
      for (const s of robots.values()) {
        bridge.know(s);
        publishState(s);
      }
      publishDiscovery();
      // What an earlier start left at this broker that this one does not publish (another base
      // topic, a robot since removed): cleared, and forgotten once the broker took the clearing.
      const now = new Set([topics.bridgeState, topics.bridgeDevices, topics.bridgeInfo, ...discoveryTopics]);
      for (const robot of robots.keys()) now.add(topics.robotState(robot)).add(topics.robotAvailability(robot));
      for (const topic of ledger.stale(now)) publisher.retain(topic, '');
      listeners.push(...bridge.listen(api.events, (robot) => robots.has(robot)));
      listeners.push(
        api.events.on('robot:status', ({ status }) => {
          if (!track(status)) return;
          // As it happens, not at the state's rate: the events keep their order with the runs'.
          bridge.statusChanged(status);
          states.offer(status.robot, { status, asked: false });
        }),
      );
      for (const name of EVENTS) {
        listeners.push(
          api.events.on(name, (e: RuntimeEvents[typeof name]) => {
            if (robots.has(e.robot)) publisher.send(topics.robotEvent(e.robot), JSON.stringify(eventPayload(name, e)), 0, true);
          }),
        );
      }
      const sendHealth = () => publisher.send(topics.bridgeHealth, JSON.stringify(bridgeHealth([...robots.values()], publisher.stats(), startedAt)));
      health = setInterval(sendHealth, settings.healthIntervalMs);
      health.unref();
      connectClient(url);
    },

    async stop() {
      if (stopping) return;
      stopping = true;
      clearTimeout(retry);
      clearInterval(health);
      for (const off of listeners.splice(0)) off();
      states.flush();
      const c = client;
      if (c !== undefined) {
        for (const name of robots.keys()) publisher.retain(topics.robotAvailability(name), 'offline');
        publisher.retain(topics.bridgeState, 'offline');
        await new Promise<void>((resolve) => {
          // Past the deadline the socket is cut (the broker then says offline by the last will).
          const deadline = setTimeout(() => {
            c.stream.destroy();
            resolve();
          }, opts.stopDeadlineMs);
          // Connected: not forced, so mqtt.js waits for the broker to take the offline messages.
          c.end(!c.connected, {}, () => {
            clearTimeout(deadline);
            resolve();
          });
        });
      }
      await broker?.close();
      ledger.flush();
      if (state !== 'off') state = 'stopped';
    },

    status() {
      return { name: 'mqtt', state, broker: brokerName, ...(reason !== undefined && state !== 'online' ? { reason } : {}), ...(anonymous !== undefined ? { anonymous } : {}), ...publisher.stats() };
    },
  };
}
