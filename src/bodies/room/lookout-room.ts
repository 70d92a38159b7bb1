/**
 * A run in the lookout room: the things, what this run's cameras have seen, and which reports
 * held. A report is checked against where each thing really is, so `objects_reported` counts
 * true sightings and a lookout's `success_when` cannot be talked past. Every body in the room
 * (the kinematic sims, Reachy Mini's mock) keeps one of these for its run.
 */
import type { Metrics, VerbResult } from '../body.js';
import { deg, rad, round2, wrapAngle, type Vec } from '../microduck/sim2d/arena.js';
import type { Mark } from '../microduck/sim2d/render.js';
import { describeBearing } from '../microduck/sim2d/sim2d-body.js';
import { look, sightingOf, type Camera, type Eye, type Sighting } from './camera.js';
import { SOFA_THING, type Thing } from './room.js';

/** What every body in the room measures: the names a lookout's `success_when` may check. */
export const LOOKOUT_METRICS = ['objects_seen', 'objects_reported', 'objects_misreported', 'quacks'];

/** How far a reported bearing may be off and still hold: a glance, not a survey. */
export const BEARING_SLACK_DEG = 10;
/** How far a reported distance may be off: 0.3 m, or 15 % of a long one. */
export const distanceSlack = (metres: number): number => Math.max(0.3, 0.15 * metres);

/** `ball 18° left, 1.20 m; lamp straight ahead, 2.10 m`, or `nothing in view`. */
export function describeSightings(sightings: readonly Sighting[]): string {
  if (sightings.length === 0) return 'nothing in view';
  return sightings.map((s) => `${s.thing} ${describeBearing(rad(s.bearing_deg))}, ${s.distance_m.toFixed(2)} m`).join('; ');
}

/** `level`, `10° down`, `5° up`: a head's pitch (+ down). */
export function pitchWords(pitch: number): string {
  const d = Math.round(pitch);
  return d === 0 ? 'level' : `${Math.abs(d)}° ${d > 0 ? 'down' : 'up'}`;
}

/** Each thing once, the sighting nearest the middle of the view kept (what a sweep saw best). */
export function mergeSightings(batches: readonly (readonly { readonly sighting: Sighting; readonly offCentre: number }[])[]): Sighting[] {
  const best = new Map<string, { readonly sighting: Sighting; readonly offCentre: number }>();
  for (const batch of batches) {
    for (const s of batch) {
      const kept = best.get(s.sighting.thing);
      if (kept === undefined || s.offCentre < kept.offCentre) best.set(s.sighting.thing, s);
    }
  }
  return [...best.values()].map((s) => s.sighting).sort((a, b) => b.bearing_deg - a.bearing_deg);
}

export class LookoutRoom {
  private readonly seen = new Set<string>();
  private readonly reported = new Set<string>();
  private misreported = 0;
  private quacked = 0;

  constructor(readonly things: readonly Thing[]) {}

  /** What a camera sees now (and this run has seen it), bearings from `front` (world rad). */
  see(camera: Camera, eye: Eye, front: number): Sighting[] {
    const sightings = look(camera, eye, front, this.things);
    for (const s of sightings) this.seen.add(s.thing);
    return sightings;
  }

  /** A sweep's view at one pointing: each sighting with how far off the lens's axis it was. */
  glance(camera: Camera, eye: Eye, front: number): { readonly sighting: Sighting; readonly offCentre: number }[] {
    const lens = deg(wrapAngle(eye.heading - front));
    return this.see(camera, eye, front).map((sighting) => ({ sighting, offCentre: Math.abs(wrapAngle(rad(sighting.bearing_deg - lens))) }));
  }

  quack(): number {
    this.quacked += 1;
    return this.quacked;
  }

  /** Checks each reported sighting against the room, seen from `from` with the robot's front at `front`. */
  check(claims: readonly Sighting[], from: Vec, front: number): VerbResult {
    const held: string[] = [];
    const wrong: string[] = [];
    for (const claim of claims) {
      const name = claim.thing.trim().toLowerCase();
      const thing = this.things.find((t) => t.name === name);
      const truth = thing === undefined ? undefined : sightingOf(thing, from, front);
      const bearingOff = truth === undefined ? Infinity : Math.abs(deg(wrapAngle(rad(claim.bearing_deg - truth.bearing_deg))));
      const distanceOff = truth === undefined ? Infinity : Math.abs(claim.distance_m - truth.distance_m);
      if (truth !== undefined && bearingOff <= BEARING_SLACK_DEG && distanceOff <= distanceSlack(truth.distance_m)) {
        held.push(name);
        this.reported.add(name);
      } else {
        this.misreported += 1;
        // Where it really is stays unsaid: a report is checked, not corrected.
        wrong.push(thing === undefined ? `no ${claim.thing} in this room` : `${name} is not ${describeBearing(rad(claim.bearing_deg))}, ${round2(claim.distance_m).toFixed(2)} m`);
      }
    }
    const summary = wrong.length === 0 ? `reported ${held.join(', ')}: every sighting holds` : `${held.length} of ${claims.length} sightings hold; ${wrong.join('; ')}`;
    return { ok: wrong.length === 0, summary, data: { held, wrong: wrong.length, objects_reported: this.reported.size } };
  }

  metrics(): Metrics {
    return { objects_seen: this.seen.size, objects_reported: this.reported.size, objects_misreported: this.misreported, quacks: this.quacked };
  }

  /** The things for a transcript frame and its floor plan. */
  state(): { name: string; x: number; y: number }[] {
    return this.things.map((t) => ({ name: t.name, x: round2(t.at.x), y: round2(t.at.y) }));
  }

  marks(): Mark[] {
    // The sofa is drawn as its outline by the floor plan itself.
    return this.things.filter((t) => t !== SOFA_THING).map((t) => ({ at: t.at, char: t.char }));
  }
}
