/**
 * With an external broker, quackd cannot say who may command its robots: the broker's own logins
 * and ACL decide. So at start it tries, as a stranger would: a client with no login connects and
 * publishes a probe on quackd's request topic. If the front door's own client hears the probe, an
 * anonymous client could run, stop or answer gates, and `quackd health` warns, with the mosquitto
 * lines that close it. The probe names no command: the front door ignores it.
 */
import { randomBytes } from 'node:crypto';
import { connectAsync, type IClientOptions } from 'mqtt';

export const PROBE_REQUEST = 'anonymous-check';

/** `refused`: the broker turned the stranger away; `sent`: it let it in and took its probe (whether it arrives is the door's to see). */
export type ProbeResult = { readonly kind: 'refused' } | { readonly kind: 'sent' } | { readonly kind: 'unknown'; readonly why: string };

/** A probe's payload marker: the door knows its own stranger's probe by it (set before it is sent: it may arrive first). */
export const probeNonce = (): string => randomBytes(8).toString('hex');

export async function probeAnonymous(url: string, topic: string, nonce: string, tls: Pick<IClientOptions, 'ca' | 'rejectUnauthorized'>, version: 4 | 5): Promise<ProbeResult> {
  let client;
  try {
    client = await connectAsync(url, { protocolVersion: version, reconnectPeriod: 0, connectTimeout: 5000, clientId: `quackd_stranger_${nonce}`, ...tls });
  } catch (err) {
    const code = (err as { code?: number }).code;
    // 4/5 (3.1.1) or 0x86/0x87 (5): bad login or not authorised; anything else says nothing either way.
    if (code === 4 || code === 5 || code === 0x86 || code === 0x87) return { kind: 'refused' };
    return { kind: 'unknown', why: err instanceof Error ? (err.message.split('\n')[0] ?? 'error') : String(err) };
  }
  try {
    await client.publishAsync(topic, JSON.stringify({ probe: nonce }), { qos: 1 });
    return { kind: 'sent' };
  } catch {
    // MQTT 5 says "not authorised" in the PUBACK: connected, but confined.
    return { kind: 'refused' };
  } finally {
    await client.endAsync(true).catch(() => undefined);
  }
}

/** The mosquitto lines that let only quackd and the logins named command, for the health warning. */
export function mosquittoAclHint(base: string, serviceUser: string | undefined): string {
  const me = serviceUser ?? 'quackd';
  return `in mosquitto.conf: allow_anonymous false, password_file and acl_file set; in the acl_file: "user ${me}" / "topic readwrite ${base}/#" / "topic readwrite homeassistant/#", and for Home Assistant's login "topic read ${base}/#" / "topic write ${base}/+/set" / "topic write ${base}/bridge/request/#"`;
}
