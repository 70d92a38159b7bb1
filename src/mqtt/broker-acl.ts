/**
 * Who may publish what at the embedded broker. The service's own login publishes everything
 * quackd says (state, availability, events, discovery, the bridge's topics); any other login may
 * publish only a robot's `set` and the bridge's requests, and only when the config gives it a
 * right (`mqtt.users.<name>.may`), plus what reads need: a robot's `get` and Home Assistant's
 * birth message. What a command may do once it arrives (run, or answer a gate) is checked by the
 * front door against the same rights (mayDo). Pure: topics and names in, a verdict out.
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
}

/** Undefined when `user` may publish on `topic`, else why not (for the log). */
export function publishRefusal(ctx: AclContext, user: string, login: BrokerLogin | undefined, topic: string): string | undefined {
  if (user === ctx.serviceUser) return undefined;
  if (login === undefined) return 'not a login of this broker';
  if (topic === ctx.haStatusTopic) return undefined;
  const incoming = parseIncoming(ctx.baseTopic, topic);
  if (incoming.kind === 'get') return undefined;
  if (incoming.kind === 'set' || incoming.kind === 'request') return login.may.length > 0 ? undefined : `may only read (mqtt.users.${user}.may is empty)`;
  return "only quackd's own login publishes there";
}
