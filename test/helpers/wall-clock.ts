/**
 * A twin rig's physics keeps to the wall clock, as a real duck's time does: every quarter period
 * it steps as many whole periods as are due (a late timer catches up, a few periods at most, then
 * lets the rest go), and says after any step that something moved.
 */
export class WallClockStepper {
  private timer: NodeJS.Timeout | undefined;
  private due: number | undefined;

  constructor(
    private readonly periodMs: number,
    /** One period of physics on the goals held now. */
    private readonly stepOnce: () => void,
    /** After the periods due were stepped (at least one). */
    private readonly stepped: () => void,
    /** Before the periods due are stepped (goals taken). */
    private readonly before: () => void = () => undefined,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => this.tick(), this.periodMs / 4);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    const now = performance.now();
    this.due ??= now;
    let periods = 0;
    this.before();
    while (this.due <= now && periods < 5) {
      this.stepOnce();
      this.due += this.periodMs;
      periods++;
    }
    if (this.due <= now) this.due = now;
    if (periods > 0) this.stepped();
  }
}
