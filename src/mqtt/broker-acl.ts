/**
 * Who may publish what at the embedded broker. The service's own login publishes everything
 * quackd says (state, availability, events, discovery, the bridge's topics); any other login may
 * publish only a robot's `set` and the bridge's requests, and only when the config gives it a
 * right (`mqtt.users.<name>.may`), plus what reads need: a robot's `get` and Home Assistant's
 * birth message. What a command may do once it arrives (run, or answer a gate) is checked by the
 * front door against the same rights (mayDo). Fleet memory (`memory.share_topic`) is the fleet's
 * alone: only the service's login and logins with the `memory` right write there or hear it (a
 * forged note would reach every robot's prompt). Pure: topics and names in, a verdict out.
 */
import type { MqttRight } from './config.js';
import { parseIncoming } from './topics.js';

export interface BrokerLogin {
  readonly password: string;
  readonly may: readonly MqttRight[];
}

export interface AclContext {
  readonly baseTopic: string;
  readonly serviceUser: string;
  /** Home Assistant's birth topic, which HA's own login publishes. */
  readonly haStatusTopic: string;
  /** Fleet memory's root topic (memory.share_topic). */
  readonly memoryTopic: string;
}

const under = (root: string, topic: string): boolean => topic === root || topic.startsWith(`${root}/`);

/** Whether `user` may write and hear fleet memory's topics. */
const mayShareMemory = (ctx: AclContext, user: string, login: BrokerLogin | undefined): boolean => user === ctx.serviceUser || login?.may.includes('memory') === true;

/**
 * Whether a message on `topic` may be forwarded to `user` (a subscription such as `#` is let
 * through; what it hears of fleet memory is not).
 */
export function mayHear(ctx: AclContext, user: string, login: BrokerLogin | undefined, topic: string): boolean {
  return !under(ctx.memoryTopic, topic) || mayShareMemory(ctx, user, login);
}

/** Undefined when `user` may publish on `topic`, else why not (for the log). */
export function publishRefusal(ctx: AclContext, user: string, login: BrokerLogin | undefined, topic: string): string | undefined {
  if (user === ctx.serviceUser) return undefined;
  if (login === undefined) return 'not a login of this broker';
  if (under(ctx.memoryTopic, topic)) return mayShareMemory(ctx, user, login) ? undefined : `may not write fleet memory (mqtt.users.${user}.may has no memory)`;
  if (topic === ctx.haStatusTopic) return undefined;
  const incoming = parseIncoming(ctx.baseTopic, topic);
  if (incoming.kind === 'get') return undefined;
  if (incoming.kind === 'set' || incoming.kind === 'request') return login.may.some((r) => r !== 'memory') ? undefined : `may only read (mqtt.users.${user}.may has neither command nor confirm)`;
  return "only quackd's own login publishes there";
}
