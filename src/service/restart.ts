/**
 * A restart on request (MQTT's `bridge/request/restart`): the service stops as it does on SIGTERM
 * (runs end, bodies stop, MQTT says offline, the store closes), then exits RESTART_EXIT_CODE, and
 * systemd starts it again: the unit says `RestartForceExitStatus=75` (and `SuccessExitStatus=75`,
 * so the journal shows a restart, not a failure). Only systemd brings the process back, so a
 * service that systemd did not start (no INVOCATION_ID) refuses: exiting would be a stop.
 */

/** EX_TEMPFAIL: "try again", which is what a restart is. systemd/quackd.service names it. */
export const RESTART_EXIT_CODE = 75;

export class RestartRequest {
  private listener: ((why: string) => void) | undefined;
  private asked: string | undefined;

  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** Why this service cannot restart itself, or undefined when it can. */
  refusal(): string | undefined {
    if ((this.env['INVOCATION_ID'] ?? '') === '') return 'quackd serve was not started by systemd, so nothing would start it again after it exits: restart it where it runs';
    if (this.listener === undefined) return 'this service cannot restart itself';
    return undefined;
  }

  /** Asks for the restart (once; later asks are the same restart). */
  request(why: string): void {
    if (this.asked !== undefined) return;
    this.asked = why;
    this.listener?.(why);
  }

  /** Who carries it out: `quackd serve`'s stop (src/service/signals.ts). */
  onRequest(listener: (why: string) => void): void {
    this.listener = listener;
    if (this.asked !== undefined) listener(this.asked);
  }
}
