/** The shape of an eval set for `npm run eval:memory`: a robot's memory and the questions put to it. */

export interface FixtureNote {
  readonly id: string;
  readonly text: string;
  readonly topic?: string;
  readonly tags?: readonly string[];
}

export interface FixtureEpisode {
  readonly id: string;
  /** Position among the routine episodes. */
  readonly at: number;
  readonly text: string;
}

export interface Question {
  readonly q: string;
  /** Fixture ids of the entries that answer it (any one counts); empty when nothing does. */
  readonly answers: readonly string[];
  /** Hinges on one uncommon word or on a word form the answer spells differently. */
  readonly h?: boolean;
}

export interface EvalSet {
  readonly name: string;
  readonly notes: readonly FixtureNote[];
  readonly specialEpisodes: readonly FixtureEpisode[];
  readonly routineEpisodes: number;
  readonly routineEpisode: (i: number, rand: () => number) => string;
  readonly questions: readonly Question[];
}

/** The everyday runs a set buries its answers among: four kinds in turn, their figures drawn from `rand`. */
export function routineEpisode(i: number, rand: () => number): string {
  const side = rand() < 0.5 ? 'left' : 'right';
  const bearing = Math.round(rand() * 60);
  const dist = (0.5 + rand() * 2).toFixed(1);
  const moved = (0.3 + rand() * 0.4).toFixed(2);
  switch (i % 4) {
    case 0:
      return `find-and-kick: success — ball displaced ${moved} m (${4 + (i % 3)} steps) · search_scan: ball found at bearing ${bearing}° ${side}, ${dist} m; kick: ball moved ${moved} m`;
    case 1:
      return `find-and-kick: budget — 12 steps spent (ball not found) (12 steps) · search_scan: no ball in view; turn: facing ${bearing}° ${side}`;
    case 2:
      return `patrol: success — visited ${2 + (i % 3)} rooms (${6 + (i % 4)} steps) · walk: stopped after ${dist} m`;
    default:
      return 'hello-world: success — quacked once (1 step) · quack: quack';
  }
}
