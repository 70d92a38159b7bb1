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
/** A ball lost from view within this of the trunk is looked for where the reckoning puts it (a body that says where its kicks reach). */
const CLOSE_M = 0.35;
/** How far nearer or farther than the middle of the kicks' reach a ball is still kicked (the twin's: 0.075–0.15 m ahead). */
const REACH_DEPTH_M = 0.035;
/** A step back from a ball under the camera: a gait's shortest sure step. */
const BACK_STEP_M = 0.06;
/** A ball last seen within this is looked for by a scan, not walked to. */
const NEAR_M = 0.8;
/** How far a move to new ground goes after a scan that saw nothing. */
const NEW_GROUND_M = 1.5;

/** The ball from the trunk and the kick's reach, as a body with feet that feel the ball reports them. */
interface KickSpot {
  readonly ball: { readonly ahead: number; readonly left: number };
  readonly reach: { readonly ahead: number; readonly side: number };
}

/** Where the body's kicks reach from its trunk, when it says (the twin does, seen or not). */
function kickReach(seen: Facts): KickSpot['reach'] | undefined {
  const [ahead, side] = [num(seen, 'kick_ahead_m'), num(seen, 'kick_side_m')];
  return ahead === undefined || side === undefined ? undefined : { ahead, side };
}

function kickSpot(seen: Facts): KickSpot | undefined {
  const [ahead, left, reach] = [num(seen, 'ball_ahead_m'), num(seen, 'ball_left_m'), kickReach(seen)];
  if (ahead === undefined || left === undefined || reach === undefined) return undefined;
  return { ball: { ahead, left }, reach };
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
  /** Where the camera last put the ball from the trunk, on the floor (a body that says so: the twin); reckoned on while unseen. */
  private nearBall: Spot | undefined;
  /** How far ahead of the trunk the camera sits, from the last sighting that said both. */
  private cameraAhead = 0;
  /** Close-range looks since the camera last saw the ball: after three that found nothing, the reckoning is wrong. */
  private looks = 0;
  /** The walk policy refused a step backwards (its range has none): back off by turning round. */
  private noBackStep = false;

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
    const close = this.lostClose(seen);
    if (close !== undefined) return close;
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
        if (data?.['walked_m'] === undefined && (num(this.asked?.args as Facts, 'metres') ?? 0) < 0) this.noBackStep = true;
        // Measured where the body can (walked_m), else the distance it reckons from the walk's time (estimated_m: no odometry).
        const walked = num(data, 'walked_m') ?? num(data, 'estimated_m') ?? 0;
        // A body that says how much its gait veered (the twin): the walk went, on average, half way between.
        const veer = rad(num(data, 'turned_deg') ?? 0);
        this.pose.x += walked * Math.cos(this.pose.heading + veer / 2);
        this.pose.y += walked * Math.sin(this.pose.heading + veer / 2);
        this.pose.heading = wrap(this.pose.heading + veer);
      } else if (verb === 'kick') {
        // A body that looked round for the ball after its kick says how far it turned.
        this.pose.heading = wrap(this.pose.heading + rad(num(data, 'turned_deg') ?? 0));
        if ((num(data, 'ball_moved_m') ?? 0) > 0) {
          this.ball = undefined; // it rolled off somewhere: only the camera can say where
          this.nearBall = undefined;
        }
      }
    }
    const seen = ctx.observation.data;
    const bearing = num(seen, 'ball_bearing_deg');
    const distance = num(seen, 'ball_distance_m');
    if (seen['ball_visible'] === true && bearing !== undefined && distance !== undefined) {
      const a = this.pose.heading + rad(bearing);
      this.ball = { x: this.pose.x + distance * Math.cos(a), y: this.pose.y + distance * Math.sin(a) };
      this.emptyScans = 0;
      this.looks = 0;
      const ahead = num(seen, 'ball_ahead_m');
      const left = num(seen, 'ball_left_m');
      if (ahead !== undefined && left !== undefined) {
        const [c, s] = [Math.cos(this.pose.heading), Math.sin(this.pose.heading)];
        this.nearBall = { x: this.pose.x + ahead * c - left * s, y: this.pose.y + ahead * s + left * c };
        this.cameraAhead = Math.max(0, Math.hypot(ahead, left) - distance);
      }
    } else if (this.ball === undefined) {
      this.nearBall = undefined;
    }
  }

  /** The reckoned ball from the trunk (ahead, left), as the pose reckoning has it now. */
  private fromTrunk(spot: Spot): { readonly ahead: number; readonly left: number } {
    const [dx, dy] = [spot.x - this.pose.x, spot.y - this.pose.y];
    const [c, s] = [Math.cos(this.pose.heading), Math.sin(this.pose.heading)];
    return { ahead: dx * c + dy * s, left: -dx * s + dy * c };
  }

  /**
   * Lost from view at close range, on a body that says where its kicks reach (the twin: its
   * camera sits ahead of the trunk and loses a ball at its feet): look where the reckoning puts
   * it, a small turn that brings it in front of the camera, or a small step back when it is
   * under the camera; never a scan, whose turns sweep a ball this close away. Undefined when the
   * ball is not near or three looks found nothing (then the search goes on as for any ball).
   */
  private lostClose(seen: Facts): Call | undefined {
    const reach = kickReach(seen);
    if (this.nearBall === undefined || reach === undefined) return undefined;
    const { ahead, left } = this.fromTrunk(this.nearBall);
    if (Math.hypot(ahead, left) > CLOSE_M || this.looks >= 3) return undefined;
    this.looks += 1;
    // First, a ball reckoned a turn away from the kick spot (a last leg that drifted a few
    // centimetres off the reach): that turn, and the feet say whether it is there.
    const atFoot = this.looks === 1 ? this.turnToFoot({ ahead, left }, reach) : undefined;
    if (atFoot !== undefined) return atFoot;
    if (ahead < this.cameraAhead + 0.03) return this.stepBack(BACK_STEP_M);
    const turn = deg(Math.atan2(left, ahead));
    return Math.abs(turn) >= 3 ? { name: 'turn', args: { degrees: Math.round(turn) } } : this.stepBack(BACK_STEP_M);
  }

  /**
   * The turn about the trunk that puts a ball beside the duck at the kicking foot's side, when
   * one can (a ball as far from the trunk as the reach, give or take its depth); undefined when not.
   */
  private turnToFoot(ball: { readonly ahead: number; readonly left: number }, reach: KickSpot['reach']): Call | undefined {
    const r = Math.hypot(ball.ahead, ball.left);
    const side = (ball.left >= 0 ? 1 : -1) * reach.side;
    if (ball.ahead <= 0 || r <= Math.abs(side)) return undefined;
    const then = Math.sqrt(r * r - side * side);
    if (Math.abs(then - reach.ahead) > REACH_DEPTH_M) return undefined;
    const turn = deg(Math.atan2(ball.left, ball.ahead) - Math.asin(side / r));
    return Math.abs(turn) >= 3 ? { name: 'turn', args: { degrees: Math.round(turn) } } : undefined;
  }

  /** A small step straight back, or (a walk that does not go backwards) turn round, step off, turn back. */
  private stepBack(metres: number): Call {
    if (this.noBackStep) return this.backOff();
    this.plan.length = 0;
    return { name: 'walk', args: { metres: -metres } };
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
    if (r <= Math.abs(side) + 0.02 || ball.ahead < reach.ahead - 0.03) return this.stepBack(BACK_STEP_M);
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
    if (go <= 0.02) return this.stepBack(BACK_STEP_M);
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
