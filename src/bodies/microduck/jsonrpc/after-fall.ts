/**
 * A real duck that fell: what the body does then and how the verb's result says it. The loop
 * ends the verb `failed — fell` (src/control/fall.ts) and, by default here, cuts torque on that
 * very tick (Plant.limp): a duck on the floor that holds a mid-stride pose drives fourteen
 * servos against the floor at stall current, and stiff legs flail at the hands that pick it up.
 * The body then asks the firmware for a confirmed torque off (PROTOCOL.md: read back from every
 * servo) and puts the answer in the result. `after_fall: hold` keeps the loop's default instead:
 * torque stays on, the last targets held, nothing new sent. A verb asked for while the duck is
 * down does not switch torque on; the loop refuses it (`fallen`) until it is stood up.
 */
import type { BridgeLink } from '../../../bridge/channel.js';
import { RpcError } from '../../../bridge/errors.js';
import type { FallSettings } from '../../../control/fall.js';
import type { VerbResult as LoopResult } from '../../../control/skill.js';
import type { VerbResult } from '../../body.js';
import { missedNote } from '../policy-verb.js';

export type AfterFall = FallSettings['then'];

/** The real duck's default: limp (see above); the twin holds. */
export const DEFAULT_AFTER_FALL: AfterFall = 'limp';

/** Whether a loop result is a fall (the verb's own, or a verb refused while the duck is down). */
export function isFall(result: LoopResult): result is Extract<LoopResult, { outcome: 'failed' }> {
  return result.outcome === 'failed' && (result.reason === 'fell' || result.reason === 'fallen');
}

/** The safe state, applied and described: torque off confirmed by the firmware, or the pose held. */
async function settle(client: Pick<BridgeLink, 'torque'>, then: AfterFall): Promise<{ text: string; data: Record<string, unknown> }> {
  if (then === 'hold') return { text: 'holding its last pose (after_fall: hold)', data: { after_fall: then, torque: true } };
  try {
    const r = await client.torque(false);
    return { text: 'torque off, confirmed by the firmware', data: { after_fall: then, torque: r.torque, torque_off_confirmed: true } };
  } catch (err) {
    // Unconfirmed (-32003) or no answer: the firmware treats torque as off either way, but say so.
    const why = err instanceof RpcError ? err.remoteMessage : err instanceof Error ? err.message : String(err);
    return { text: `torque off NOT confirmed: ${why}`, data: { after_fall: then, torque_off_confirmed: false } };
  }
}

/**
 * `walk 2.00 m: failed — fell after 0.6 s (tilted 81°); torque off, confirmed by the firmware`, or
 * for a verb refused while down, `walk 2.00 m: failed — fallen: the duck is down (tilted 88°): stand it up first; …`.
 */
export async function fallResult(what: string, result: Extract<LoopResult, { outcome: 'failed' }>, periodMs: number, tiltDeg: number, client: Pick<BridgeLink, 'torque'>, then: AfterFall): Promise<VerbResult> {
  const safe = await settle(client, then);
  const tilt = `tilted ${Math.round(tiltDeg)}°`;
  const how = result.reason === 'fell' ? `fell after ${((result.ranMs ?? result.ticks * periodMs) / 1000).toFixed(1)} s (${tilt})` : `${result.message} (${tilt}): stand it up first`;
  const missed = missedNote(result);
  return { ok: false, summary: `${what}: failed — ${how}${missed !== undefined ? `; ${missed}` : ''}; ${safe.text}`, data: { fell: true, tilt_deg: Math.round(tiltDeg), ...safe.data } };
}
