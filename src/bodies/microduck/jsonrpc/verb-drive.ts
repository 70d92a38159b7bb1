/**
 * One motion verb of a jsonrpc duck in the control loop, from its first question to the firmware
 * to its last tick: torque on first (the firmware then holds the pose it finds), then the policy
 * until it ends and the stand after it (policy-verb.ts), with what the plant sent in between. The
 * verb's own stop is open before its first await, so a stop (the caller's signal, the body's
 * stop(), trouble on the link) at any moment of it ends this verb on the loop's next tick, and a
 * stop before torque is on leaves it off; the link is watched while it runs.
 */
import type { BridgeLink } from '../../../bridge/channel.js';
import type { BridgeState } from '../../../bridge/protocol.js';
import type { ControlLoop } from '../../../control/control-loop.js';
import type { FallSettings } from '../../../control/fall.js';
import type { VerbResult as LoopResult } from '../../../control/skill.js';
import type { HeadingHoldSettings } from '../../../control/skills/heading-hold.js';
import type { Slot } from '../../../policy/slots.js';
import type { VerbResult } from '../../body.js';
import type { LentPolicies } from '../lent-policies.js';
import { runPolicyVerb, stanceRefusal, type PolicyVerb } from '../policy-verb.js';
import { LinkFactsSchema, type LinkFacts } from './control-plant.js';
import { tiltDeg } from './describe-state.js';
import type { LinkWatch } from './link-watch.js';
import { JSONRPC_KEY } from './settings.js';

/** The loop's period, 50 Hz: a verb's ticks in seconds. */
export const PERIOD_MS = 20;

/** How long past its own time limit a verb may run before the body stops the loop itself. */
const VERB_GRACE_MS = 3000;

/** The control loop a body drives its motion verbs with, where each policy slot's folder is, and what it counts as a fall. */
export interface JsonRpcControl {
  readonly loop: ControlLoop;
  readonly policies: (slot: Slot) => string;
  readonly fall: FallSettings;
  /** A straight walk's heading hold (the robot's `heading_hold`): the defaults when undefined. */
  readonly headingHold?: HeadingHoldSettings | false;
}

/** A verb the loop ran, with the plant's facts just before it and just after. */
export interface Driven {
  readonly result: LoopResult;
  readonly before: LinkFacts | undefined;
  readonly after: LinkFacts | undefined;
}

/** What a verb needs of its body: the state it trusts, and the link it watches. */
export interface DriveHost {
  /** The firmware's state now (a fresh one when the cached one is old news). */
  freshState(): Promise<BridgeState>;
  /** The state a verb left, fetched so the next observation includes it. */
  settle(): Promise<void>;
  /** Throws the run's BodyError when the body is closed or its link lost. */
  assertLinked(): void;
  /** A verb ended: the link is watched on only while anyone listens. */
  unwatch(): void;
}

/** What the plant in the loop's worker says about the link (sent targets, integrated yaw, faults). */
export async function linkFacts(loop: ControlLoop): Promise<LinkFacts | undefined> {
  const parsed = LinkFactsSchema.safeParse(await loop.sense().catch(() => null));
  return parsed.success ? parsed.data : undefined;
}

export class VerbDrive {
  /** A motion verb is under way (from before torque on to its last tick): trouble and stop() end it. */
  private driving: AbortController | undefined;

  constructor(
    private readonly client: BridgeLink,
    private readonly linkWatch: LinkWatch,
    private readonly lent: LentPolicies,
    private readonly host: DriveHost,
    /** Without one (a body built by hand on a client) the motion verbs are refused. */
    private readonly control: JsonRpcControl | undefined,
    /** A duck with a camera stands after a kick while the ball rolls on. */
    private readonly looksAfterKick: boolean,
  ) {}

  get active(): boolean {
    return this.driving !== undefined;
  }

  /** Ends the verb under way at the loop's next tick, whatever it was doing. */
  abort(): void {
    this.driving?.abort();
  }

  /**
   * Torque on first, then the policy until the verb's `until` or its time limit. Trouble on the
   * link or the caller's signal stops it; a lost link then ends the run as any verb does, with a
   * BodyError.
   */
  async run(v: PolicyVerb, signal?: AbortSignal): Promise<Driven | VerbResult> {
    const { verb } = v;
    const control = this.control;
    if (control === undefined) return { ok: false, summary: `${verb} needs the control loop, and this ${JSONRPC_KEY} body was opened without one` };
    if (this.linkWatch.hello.state_hz <= 0) return { ok: false, summary: `${verb} needs the firmware's state stream, and it streams none (state_hz 0)` };
    const refusal = stanceRefusal((slot) => this.lent.dir(slot), v.slot);
    if (refusal !== undefined) return { ok: false, summary: `${verb}: ${refusal}` };
    const { loop } = control;
    // The verb's own stop, open before its first await: a stop that comes while torque switches
    // on or the first reading is asked for is this verb's, never one the loop takes for the last.
    const halt = new AbortController();
    const stop = (): void => halt.abort();
    signal?.addEventListener('abort', stop, { once: true });
    this.driving = halt;
    this.linkWatch.start();
    let before: LinkFacts | undefined;
    let result: LoopResult;
    // The skill's own time limit runs on ticks; a loop that ticks no skill (no fresh state) must still end.
    const guard = setTimeout(stop, v.timeoutMs + VERB_GRACE_MS);
    try {
      const state = await this.host.freshState();
      // A duck lying down is not stiffened for a verb the loop will refuse (`fallen`) anyway.
      const down = tiltDeg(state) > (control.fall.tiltRad * 180) / Math.PI;
      if (!state.torque && !down && !halt.signal.aborted) await this.client.torque(true);
      before = await linkFacts(loop);
      result = await runPolicyVerb({ loop, dir: (slot) => this.lent.dir(slot), headingHold: control.headingHold, standAfterKick: this.looksAfterKick }, v, halt.signal);
    } finally {
      clearTimeout(guard);
      signal?.removeEventListener('abort', stop);
      this.driving = undefined;
      this.host.unwatch();
    }
    this.host.assertLinked();
    const after = await linkFacts(loop);
    await this.host.settle();
    return { result, before, after };
  }
}
