/**
 * The fake pilot's ball game (find-and-kick), from the structured observations alone: scan, aim,
 * walk up in legs, kick, check. It keeps its own reckoning of where it is (what its turns and
 * walks say they did, from where it started) and where it last saw the ball, so a ball lost from
 * sight (the sofa in between, a gait that veered) is walked to when far and scanned for when
 * near; a body that says where the ball is from its trunk and where its kicks reach (the twin)
 * has the kick lined up by a turn about the trunk and a short last leg; a walk something blocks
 * is gone around (turn aside, step, aim again); a scan that sees nothing is followed by a move
 * to new ground, a different way each time. It knows nothing of the room: only what the body's
 * results and sensors say.
 */
import type { PilotContext, ToolCall } from './provider.js';

type Call = Omit<ToolCall, 'id'>;
type Facts = Readonly<Record<string, unknown>>;

interface Spot {
  readonly x: number;
  readonly y: number;
}

const num = (facts: Facts | undefined, key: string): number | undefined => (typeof facts?.[key] === 'number' ? facts[key] : undefined);
const rad = (degrees: number): number => (degrees * Math.PI) / 180;
const deg = (radians: number): number => (radians * 180) / Math.PI;
const wrap = (a: number): number => Math.atan2(Math.sin(a), Math.cos(a));
const cm = (m: number): number => Math.round(m * 100) / 100;

/** Where to stop for a kick when the body does not say (sim2d's sweet spot). */
const KICK_FROM_M = 0.25;
/** How far past the kick spot a walk may end and still kick from there. */
const KICK_SLACK_M = 0.08;
/** A walk longer than this stops short, to aim again before the last leg (gaits drift). */
const LONG_LEG_M = 0.6;
/** How far a detour steps aside from what blocked a walk. */
const SIDESTEP_M = 0.6;
/** Within this of the trunk, a body that reports where its kicks reach has the ball lined up for one. */
const LINE_UP_M = 0.5;
/**
 * The last leg to a kick, walked blind: from where the camera (ahead of the twin's trunk) still
 * sees a ball lined up beside the foot. Short, so a gait's veer at its end moves the ball
 * less than the reach is wide.
 */
const FINAL_LEG_M = 0.14;
/** A ball last seen within this is looked for by a scan, not walked to. */
const NEAR_M = 0.8;
/** How far a move to new ground goes after a scan that saw nothing. */
const NEW_GROUND_M = 1.5;

/** The ball from the trunk and the kick's reach, as a body with feet that feel the ball reports them. */
interface KickSpot {
  readonly ball: { readonly ahead: number; readonly left: number };
  readonly reach: { readonly ahead: number; readonly side: number };
}

function kickSpot(seen: Facts): KickSpot | undefined {
  const [ahead, left, reachAhead, side] = ['ball_ahead_m', 'ball_left_m', 'kick_ahead_m', 'kick_side_m'].map((k) => num(seen, k));
  if (ahead === undefined || left === undefined || reachAhead === undefined || side === undefined) return undefined;
  return { ball: { ahead, left }, reach: { ahead: reachAhead, side } };
}

export class BallGame {
  /** Where the duck thinks it is and faces, in its own frame: the start is (0, 0) facing +x. */
  private pose = { x: 0, y: 0, heading: 0 };
  private ball: Spot | undefined;
  private readonly plan: Call[] = [];
  private asked: Call | undefined;
  /** A detour's sidestep: blocked itself, the duck turns round rather than aside again. */
  private sidestep: Call | undefined;
  private emptyScans = 0;
  private kicked = false;

  next(ctx: PilotContext, offered: ReadonlySet<string>): Call {
    const call = this.choose(ctx, offered);
    this.asked = call;
    return call;
  }

  private choose(ctx: PilotContext, offered: ReadonlySet<string>): Call {
    const last = ctx.lastResults.at(-1);
    this.reckon(ctx);
    if (last?.verb === 'kick' && (num(last.result.data, 'ball_displaced_m') ?? 0) >= 0.3) this.kicked = true;
    // A duck that fell stays down (nothing here stands it up): say so rather than spend the budget.
    if (last?.result.data?.['fell'] === true) return { name: 'declare_failure', args: { reason: `I fell: ${last.result.summary}` } };
    if (this.kicked) {
      return last?.verb === 'quack' || !offered.has('quack') ? { name: 'declare_success', args: { reason: 'The ball moved at least 0.3 m.' } } : { name: 'quack', args: {} };
    }
    const seen = ctx.observation.data;
    // A body that can tell the ball is at a foot (the twin's feet; the camera has lost it so close) is kicked from there.
    const atFoot = seen['ball_in_reach'];
    if (atFoot === 'left' || atFoot === 'right') return this.clear({ name: 'kick', args: { foot: atFoot } });
    const blockedBy = last?.verb === 'walk' ? last.result.data?.['blocked_by'] : undefined;
    if (typeof blockedBy === 'string' && blockedBy !== 'ball') {
      const detour = this.goAround(num(last?.result.data, 'walked_m') ?? 0);
      if (detour !== undefined) return detour;
    }
    const planned = this.plan.shift();
    if (planned !== undefined) return planned;
    const kickFrom = num(seen, 'kick_from_m') ?? KICK_FROM_M;
    if (seen['ball_visible'] === true) return this.approach(seen, kickFrom);
    if (this.ball !== undefined) return this.walkToWhereItWas(kickFrom, last);
    return this.search(last?.verb);
  }

  /** Updates the reckoning from what the last calls did, and the ball's spot from what is seen now. */
  private reckon(ctx: PilotContext): void {
    for (const { verb, result } of ctx.lastResults) {
      const data = result.data;
      if (verb === 'turn' || verb === 'search_scan') {
        // sim2d's turn reports no angle: it turns exactly what was asked.
        const asked = this.asked?.name === 'turn' ? num(this.asked.args as Facts, 'degrees') : undefined;
        const turned = num(data, 'turned_deg') ?? (verb === 'turn' ? asked : undefined) ?? 0;
        this.pose.heading = wrap(this.pose.heading + rad(turned));
      } else if (verb === 'walk') {
        const walked = num(data, 'walked_m') ?? 0;
        this.pose.x += walked * Math.cos(this.pose.heading);
        this.pose.y += walked * Math.sin(this.pose.heading);
      } else if (verb === 'kick' && (num(data, 'ball_moved_m') ?? 0) > 0) {
        this.ball = undefined; // it rolled off somewhere: only the camera can say where
      }
    }
    const seen = ctx.observation.data;
    const bearing = num(seen, 'ball_bearing_deg');
    const distance = num(seen, 'ball_distance_m');
    if (seen['ball_visible'] === true && bearing !== undefined && distance !== undefined) {
      const a = this.pose.heading + rad(bearing);
      this.ball = { x: this.pose.x + distance * Math.cos(a), y: this.pose.y + distance * Math.sin(a) };
      this.emptyScans = 0;
    }
  }

  private clear(call: Call): Call {
    this.plan.length = 0;
    return call;
  }

  /** Seen: turn it straight ahead, walk up in legs, kick from the kick spot. */
  private approach(seen: Facts, kickFrom: number): Call {
    this.plan.length = 0;
    const bearing = num(seen, 'ball_bearing_deg') ?? 0;
    const distance = num(seen, 'ball_distance_m') ?? 0;
    const spot = kickSpot(seen);
    const fromTrunk = spot === undefined ? undefined : Math.hypot(spot.ball.ahead, spot.ball.left);
    if (spot !== undefined && fromTrunk !== undefined && fromTrunk <= LINE_UP_M) return this.lineUp(spot);
    // A body that says where its kicks reach is walked to where it can line one up (its camera
    // is ahead of its trunk by the difference); else to the kick spot.
    const stopAt = fromTrunk !== undefined ? LINE_UP_M - 0.1 - (fromTrunk - distance) : kickFrom;
    if (spot === undefined && distance <= kickFrom + KICK_SLACK_M) {
      // Too close to aim by turning: a kick forgives 25° (sim2d's), else step back and look again.
      return Math.abs(bearing) <= 20 ? { name: 'kick', args: { foot: bearing > 0 ? 'left' : 'right' } } : this.backOff();
    }
    // Aimed when the ball is within a few degrees, or (near) within a few centimetres of the line.
    if (Math.abs(bearing) > 4 && Math.abs(distance * Math.sin(rad(bearing))) > 0.03) return { name: 'turn', args: { degrees: bearing } };
    const leg = distance - stopAt;
    return { name: 'walk', args: { metres: cm(Math.min(2, leg > LONG_LEG_M ? leg - 0.3 : leg)) } };
  }

  /**
   * Near, on a body that says where the ball is from its trunk and where its kicks reach: turn
   * so the ball will pass the kicking foot at the kick's side, then walk it up to the foot.
   */
  private lineUp({ ball, reach }: KickSpot): Call {
    const r = Math.hypot(ball.ahead, ball.left);
    const side = (ball.left >= 0 ? 1 : -1) * reach.side;
    if (r <= Math.abs(side) + 0.02 || ball.ahead < reach.ahead - 0.03) return this.backOff();
    // The turn about the trunk that puts the ball `side` to the left of straight ahead.
    const turn = deg(Math.atan2(ball.left, ball.ahead) - Math.asin(side / r));
    if (Math.abs(ball.left - side) > 0.025 && Math.abs(turn) >= 2) {
      // Turned this close, the camera may lose it: the last leg follows the turn whatever it sees.
      const then = Math.sqrt(r * r - side * side) - reach.ahead;
      if (then > 0.02 && then <= FINAL_LEG_M + 0.03) this.plan.push({ name: 'walk', args: { metres: cm(then) } });
      return { name: 'turn', args: { degrees: Math.round(turn) } };
    }
    // In two legs, lined up again between them: a gait veers as it goes (the twin's, up to 20°
    // in a walk), and the reach is a few centimetres wide.
    // First to where the camera still sees it lined up, then the last leg, short and blind.
    const go = ball.ahead - reach.ahead;
    if (go <= 0.02) return this.backOff();
    return { name: 'walk', args: { metres: cm(go > FINAL_LEG_M + 0.03 ? go - FINAL_LEG_M : go) } };
  }

  /** Too close to line anything up, and a gait may not walk backwards: turn round, step off, turn back. */
  private backOff(): Call {
    this.plan.length = 0;
    this.plan.push({ name: 'walk', args: { metres: 0.3 } }, { name: 'turn', args: { degrees: 180 } });
    return { name: 'turn', args: { degrees: 180 } };
  }

  /** Not in sight now but seen before: head for where it was, and look again there. */
  private walkToWhereItWas(kickFrom: number, last: PilotContext['lastResults'][number] | undefined): Call {
    const ball = this.ball!;
    const away = Math.hypot(ball.x - this.pose.x, ball.y - this.pose.y);
    const bearing = deg(wrap(Math.atan2(ball.y - this.pose.y, ball.x - this.pose.x) - this.pose.heading));
    // Near, lost from view by a gait's veer more likely than by anything in between: a scan
    // finds it. A scan that does not: right by it, it is under the camera (step off and look
    // again); farther, the reckoning is wrong and the search starts afresh.
    if (away < NEAR_M) {
      if (last?.verb !== 'search_scan') return { name: 'search_scan', args: {} };
      this.ball = undefined;
      return away < kickFrom + 0.2 ? this.backOff() : this.search(last.verb);
    }
    if (Math.abs(bearing) > 10) return { name: 'turn', args: { degrees: Math.round(bearing) } };
    return { name: 'walk', args: { metres: cm(Math.min(2, Math.max(0.2, away - kickFrom - 0.3))) } };
  }

  /**
   * A walk stopped by a wall or the sofa: turn aside (towards the ball's side), step, then aim
   * again. A sidestep blocked at once turns round and steps the other way; one that got some way
   * before it was blocked has made its room: aim again from there (undefined).
   */
  private goAround(walked: number): Call | undefined {
    const wasSidestep = this.asked !== undefined && this.asked === this.sidestep;
    this.plan.length = 0;
    if (wasSidestep && Math.abs(walked) >= 0.2 && this.ball !== undefined) return undefined;
    if (wasSidestep) return this.stepAside(180, 2 * SIDESTEP_M);
    if (this.ball === undefined) return { name: 'turn', args: { degrees: 90 } };
    const bearing = wrap(Math.atan2(this.ball.y - this.pose.y, this.ball.x - this.pose.x) - this.pose.heading);
    return this.stepAside(bearing < 0 ? -90 : 90, SIDESTEP_M);
  }

  private stepAside(degrees: number, metres: number): Call {
    this.sidestep = { name: 'walk', args: { metres } };
    this.plan.push(this.sidestep);
    return { name: 'turn', args: { degrees } };
  }

  /** Nothing in sight and nothing known: scan; after a scan that saw nothing, new ground first. */
  private search(lastVerb: string | undefined): Call {
    if (lastVerb !== 'search_scan') return { name: 'search_scan', args: {} };
    this.emptyScans += 1;
    // A different way each time (90°, 180°, 270° … from where the scan faced), so a duck in a
    // corner or behind the sofa does not walk back and forth over the same floor.
    this.plan.push({ name: 'walk', args: { metres: NEW_GROUND_M } });
    return { name: 'turn', args: { degrees: this.emptyScans % 2 === 1 ? 90 : 180 } };
  }
}
