/**
 * sd_notify for `quackd serve` under systemd (Type=notify): READY=1 once the service is up,
 * WATCHDOG=1 every WatchdogSec/2 while the service itself is alive (a stuck or broken service
 * stops feeding it and systemd restarts it; a robot's trouble never does), STATUS= lines for `systemctl status`, STOPPING=1 on
 * the way out. Without NOTIFY_SOCKET (not under systemd) every call does nothing.
 *
 * How the datagram gets there: Node has no AF_UNIX datagram socket, so each message is handed to
 * `systemd-notify`, which is on every machine that has systemd, through one long-lived /bin/sh
 * (notify-helper.ts: forking quackd itself for each message would stall it). The other routes:
 * `unix-dgram` and `sd-notify` from npm (zigbee2mqtt uses unix-dgram) are native addons, to be
 * built for every Pi and Jetson; python3 or socat as the sender are not on every image, and socat
 * keeps the fd of systemd-notify's barrier (below) open: the sender waits 5 s, then says ERRNO=110.
 *
 * The race: systemd-notify as the unprivileged quackd user cannot speak for quackd's pid (faking
 * the credentials needs CAP_SYS_ADMIN; as root it does, and sends as its parent), so a message
 * comes from its own pid, which systemd accepts with NotifyAccess=all by finding the sender's
 * cgroup; a sender that has already exited is not found and its message is dropped. Since 246
 * (Debian 12 and Raspberry Pi OS have 252) systemd-notify follows the message with BARRIER=1 and
 * waits until systemd has read both, so it is alive while its message is read; `--no-block`
 * would bring the race back and is never passed. (254's `--exec` and 256's `--fork` are for
 * shell scripts and change nothing here.) Messages go one at a time, in order; a watchdog ping
 * never queues behind another ping. An abstract socket (`@name`) works: systemd-notify handles it.
 *
 * Measured (bench/sd-notify.ts, 2-core x64 VM): a message takes ~6 ms to reach a listener; the
 * control loop runs in its own thread and never waits on any of this.
 */
import { logger, type ModuleLogger } from '../log.js';
import { notifyHelper, type NotifySender } from './notify-helper.js';

export interface NotifyOptions {
  readonly env: NodeJS.ProcessEnv;
  /** Why the service itself is not alive, or undefined while it is: the watchdog is fed only then. */
  readonly trouble: () => string | undefined;
  /** Our pid, for WATCHDOG_PID (the process's own by default). */
  readonly pid?: number;
  /** How a message reaches systemd (systemd-notify through notify-helper.ts by default). */
  readonly sender?: NotifySender;
  readonly log?: ModuleLogger;
}

/** STOPPING=1 must not hold up a shutdown that has 5 s in all. */
const STOPPING_WAIT_MS = 1500;

/** The watchdog interval asked for by WATCHDOG_USEC, when it is meant for `pid`: half the timeout. */
export function watchdogIntervalMs(env: NodeJS.ProcessEnv, pid: number): number | string | undefined {
  const usec = env['WATCHDOG_USEC'];
  if (usec === undefined || usec === '') return undefined;
  const forPid = env['WATCHDOG_PID'];
  if (forPid !== undefined && forPid !== '' && forPid !== String(pid)) return undefined;
  const n = /^\d+$/.test(usec) ? Number(usec) : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0) return `WATCHDOG_USEC "${usec}" is not a positive whole number of microseconds`;
  return Math.max(1, Math.floor(n / 2000));
}

/** A STATUS= value on one line: systemd reads a newline as the start of the next variable. */
const oneLine = (text: string) => text.replace(/\s*[\r\n]+\s*/g, ' ').trim();

export class SystemdNotify {
  private readonly socket: string | undefined;
  private readonly log: ModuleLogger;
  private readonly sender: NotifySender;
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private pingQueued = false;
  private starved = false;
  private broken = false;
  private failing = false;
  private readied = false;
  private stopped = false;

  constructor(private readonly options: NotifyOptions) {
    const socket = options.env['NOTIFY_SOCKET'];
    this.socket = socket !== undefined && socket !== '' ? socket : undefined;
    this.log = options.log ?? logger('service');
    this.sender = options.sender ?? notifyHelper(options.env);
  }

  /** Whether systemd is listening at all (NOTIFY_SOCKET set). */
  get enabled(): boolean {
    return this.socket !== undefined;
  }

  /** Starts the watchdog pings when systemd asked for them (WATCHDOG_USEC). */
  start(): void {
    if (!this.enabled || this.timer !== undefined || this.stopped) return;
    this.sender.open();
    const interval = watchdogIntervalMs(this.options.env, this.options.pid ?? process.pid);
    if (typeof interval === 'string') return this.log.warn(`${interval}; no watchdog pings`);
    if (interval === undefined) return;
    this.timer = setInterval(() => this.ping(), interval);
    this.timer.unref();
  }

  /** READY=1: the service is up and serving; `status` is shown by `systemctl status quackd`. */
  ready(status?: string): void {
    if (this.readied) return;
    this.readied = true;
    this.post(['READY=1', ...(status !== undefined ? [`STATUS=${oneLine(status)}`] : [])]);
  }

  status(text: string): void {
    this.post([`STATUS=${oneLine(text)}`]);
  }

  /** STOPPING=1 and no more pings; resolves once systemd has it, or after a short wait at most. */
  async stopping(status?: string): Promise<void> {
    this.stop();
    if (!this.enabled) return;
    this.post(['STOPPING=1', ...(status !== undefined ? [`STATUS=${oneLine(status)}`] : [])]);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOPPING_WAIT_MS)));
    await Promise.race([this.queue, late]);
    clearTimeout(timer);
    this.sender.close();
  }

  /** Stops the pings; idempotent. Messages already posted are still sent. */
  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }

  private ping(): void {
    const trouble = this.options.trouble();
    if (trouble !== undefined) {
      // Said once per spell: systemd restarts the service when the spell outlasts WatchdogSec.
      if (!this.starved) this.log.warn(`the service is not alive (${trouble}): systemd watchdog pings withheld`);
      this.starved = true;
      return;
    }
    if (this.starved) this.log.info('the service is alive again: systemd watchdog pings resumed');
    this.starved = false;
    if (this.pingQueued) return;
    this.pingQueued = true;
    this.post(['WATCHDOG=1'], () => (this.pingQueued = false));
  }

  private post(lines: readonly string[], sent?: () => void): void {
    if (!this.enabled || this.broken) return;
    const message = lines.join('\n');
    this.queue = this.queue.then(async () => {
      sent?.();
      if (this.broken) return;
      try {
        await this.sender.send(message);
        this.failing = false;
      } catch (err) {
        const what = lines[0] ?? 'a message';
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
          // Nothing will ever arrive: said once, and no more spawns.
          this.broken = true;
          return this.log.warn('systemd-notify is not installed: systemd will not hear that quackd is ready (Type=notify needs it)');
        }
        // A watchdog every 15 s that keeps failing is one warning, not one a ping.
        if (this.failing) return this.log.debug(`systemd did not get ${what}: ${(err as Error).message}`);
        this.failing = true;
        this.log.warn(`systemd did not get ${what}: ${(err as Error).message}`);
      }
    });
  }
}
