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
