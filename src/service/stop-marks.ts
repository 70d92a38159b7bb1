/**
 * The emergency stops a service has heard, counted. A run asked for before a stop but not yet
 * begun when it came (nothing was there to stop: the asker's name being looked up, its duck read)
 * is stopped as it begins. A request's mark is the count when it came; a stop's, the count once heard.
 */
export class StopMarks {
  private count = 0;
  private all = 0;
  private readonly byRobot = new Map<string, number>();

  /** Now: a request taking this mark is stopped by any stop heard after it. */
  get mark(): number {
    return this.count;
  }

  /** A stop of these robots; of every robot when undefined. */
  heard(robots: readonly string[] | undefined): void {
    this.count += 1;
    if (robots === undefined) this.all = this.count;
    else for (const robot of robots) this.byRobot.set(robot, this.count);
  }

  /** A stop of `robot`, or of every robot, was heard after `mark`. */
  since(robot: string, mark: number): boolean {
    return this.all > mark || (this.byRobot.get(robot) ?? 0) > mark;
  }
}
