/**
 * A pty whose far end this process holds: the wire between quackd and what stands for the
 * hardware. The master side is opened here (posix_openpt through koffi); quackd opens the slave
 * through a symlink at `near`, as it opens a USB adapter's /dev/serial/by-id link. A simulator in
 * a node process reads the master on the event loop (`far`: the servo simulator, its twin); a far
 * end that is a program of its own is handed the master (`master`): inherited as it starts (the
 * bench's servo simulator), or over a cable it can be unplugged from and plugged back into (the
 * host firmware: pty-cable.ts).
 *
 * Why not socat here: its two ptys put two kernel hand-offs (tty buffer work, run by a kworker
 * at normal priority) and a relay process in each direction. Beside four busy processes a bus
 * cycle waited 100 ms and more in them and a twin's patrol fell about one run in eight; one pty
 * has one hand-off each way, and the simulator or the firmware, at the rig's priority, reads the
 * master at once.
 */
import { closeSync, constants, existsSync, mkdtempSync, openSync, rmSync, symlinkSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReadStream } from 'node:tty';
import koffi from 'koffi';

/** The simulator's side of the wire: what quackd wrote, and a way to answer. */
export interface FarEnd {
  readonly input: ReadStream;
  write(bytes: Uint8Array): void;
}

/**
 * The far end on a pty master `master`, opened here or inherited from the process that opened it;
 * `label` names the wire in what it says.
 */
export function farEndOn(master: number, label: string): FarEnd {
  // libuv reads a tty on the event loop (epoll), never blocking a thread; it makes the fd non-blocking.
  const input = new ReadStream(master);
  // Never what keeps a test process from exiting (pty-pair.ts's live(), for the same reason).
  input.unref();
  input.on('error', () => undefined);
  let open = true;
  input.once('close', () => (open = false));
  const write = (bytes: Uint8Array): void => {
    if (!open) return;
    let sent = 0;
    try {
      sent = writeSync(master, bytes);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    }
    // A full pty (nothing reads the port) drops what does not fit, as a wire no one listens on;
    // said, as a reply lost here would otherwise read as a servo that did not answer.
    if (sent < bytes.length) process.stderr.write(`held-pty: ${label} is full (nothing reads it): ${bytes.length - sent} bytes dropped\n`);
  };
  return { input, write };
}

interface Libc {
  openpt(flags: number): number;
  grant(fd: number): number;
  unlock(fd: number): number;
  name(fd: number): string | null;
  getattr(fd: number, termios: Buffer): number;
  makeRaw(termios: Buffer): void;
  setattr(fd: number, when: number, termios: Buffer): number;
  flow(fd: number, action: number): number;
}

let libc: Libc | undefined;

function loadLibc(): Libc {
  if (libc !== undefined) return libc;
  const c = koffi.load('libc.so.6');
  const fn = <T>(definition: string): T => c.func(definition) as T;
  libc = {
    openpt: fn('int posix_openpt(int flags)'),
    grant: fn('int grantpt(int fd)'),
    unlock: fn('int unlockpt(int fd)'),
    name: fn('const char *ptsname(int fd)'),
    getattr: fn('int tcgetattr(int fd, _Out_ uint8_t *termios)'),
    makeRaw: fn('void cfmakeraw(_Inout_ uint8_t *termios)'),
    setattr: fn('int tcsetattr(int fd, int when, const uint8_t *termios)'),
    flow: fn('int tcflow(int fd, int action)'),
  };
  return libc;
}

/** glibc's struct termios is 60 bytes; room to spare. */
const TERMIOS_BYTES = 128;
const TCSANOW = 0;
/** tcflow's actions: suspend, restart output. */
const TCOOFF = 0;
const TCOON = 1;
/** Linux's O_CLOEXEC (the generic value: x86, arm, arm64), which node's fs.constants does not list. */
const O_CLOEXEC = 0o2000000;

/** A plugged-in pty: its master, the slave held open, and the far end when read here. */
interface Plugged {
  readonly master: number;
  readonly hold: number;
  end?: FarEnd;
}

export class HeldPty {
  readonly dir: string;
  /** The end quackd opens: a symlink to the slave, /dev/pts/N. */
  readonly near: string;
  private plugged: Plugged | undefined;

  constructor(prefix = 'quackd-pty-', names: { readonly near: string } = { near: 'host' }) {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    this.near = join(this.dir, names.near);
  }

  /**
   * The end a simulator in this process answers on (ServoSim.open); a new one after each open().
   * Read here from then on: not with `master` handed to a program too.
   */
  get far(): FarEnd {
    const plugged = this.live();
    plugged.end ??= farEndOn(plugged.master, this.near);
    return plugged.end;
  }

  /**
   * The master's fd, for a far end that is a program of its own: inherited as it starts, or
   * plugged in over a cable (pty-cable.ts). This process keeps its copy until unplug().
   */
  get master(): number {
    return this.live().master;
  }

  private live(): Plugged {
    if (this.plugged === undefined) throw new Error('the pty is unplugged');
    return this.plugged;
  }

  /** Plugs in a new pty: the master here, raw as socat's `raw,echo=0` made it, and the link at `near`. */
  async open(): Promise<this> {
    const c = loadLibc();
    // Close-on-exec: a quackd this process spawns must not inherit the master, or closing it here
    // would not be the last close, and unplug would hang up no one.
    const master = c.openpt(constants.O_RDWR | constants.O_NOCTTY | O_CLOEXEC);
    if (master < 0) throw new Error('posix_openpt failed: no pty for the rig');
    const slave = c.grant(master) === 0 && c.unlock(master) === 0 ? c.name(master) : null;
    if (slave === null) {
      closeSync(master);
      throw new Error('grantpt/unlockpt failed: the rig cannot unlock its pty');
    }
    // Held open for as long as it is plugged in: without a slave open, the master reads EIO each
    // time quackd closes the port between runs, and the stream that reads it ends.
    const hold = openSync(slave, constants.O_RDWR | constants.O_NOCTTY);
    const termios = Buffer.alloc(TERMIOS_BYTES);
    if (c.getattr(hold, termios) !== 0) throw new Error(`tcgetattr ${slave} failed`);
    c.makeRaw(termios);
    if (c.setattr(hold, TCSANOW, termios) !== 0) throw new Error(`tcsetattr ${slave} failed`);
    this.plugged = { master, hold };
    symlinkSync(slave, this.near);
    return this;
  }

  /**
   * Unplug: the master closes (quackd's port hangs up, as a pulled USB adapter's does, once no
   * program holds a copy either) and the link goes.
   */
  async unplug(): Promise<void> {
    const plugged = this.plugged;
    this.plugged = undefined;
    if (plugged === undefined) return;
    if (existsSync(this.near)) unlinkSync(this.near);
    const input = plugged.end?.input;
    if (input === undefined) closeSync(plugged.master);
    else if (!input.destroyed) {
      // The stream owns the master's fd: destroying it closes it.
      const closed = new Promise<void>((resolve) => input.once('close', () => resolve()));
      input.destroy();
      await closed;
    }
    closeSync(plugged.hold);
  }

  /**
   * Freeze the wire: nothing crosses either way until resume(). Read here, the reading stops (what
   * quackd writes waits in the kernel); handed to a program, the pty's output stops both ways
   * (tcflow), and a side that writes on finds the wire full, as behind a stalled USB link.
   */
  pause(): void {
    const plugged = this.plugged;
    if (plugged?.end !== undefined) plugged.end.input.pause();
    else if (plugged !== undefined) this.flow(plugged, TCOOFF);
  }

  resume(): void {
    const plugged = this.plugged;
    if (plugged?.end !== undefined) plugged.end.input.resume();
    else if (plugged !== undefined) this.flow(plugged, TCOON);
  }

  private flow(plugged: Plugged, action: number): void {
    const c = loadLibc();
    // The slave's output is what quackd sends; the master's, what the far end answers.
    for (const fd of [plugged.hold, plugged.master]) {
      if (c.flow(fd, action) !== 0) throw new Error(`tcflow on ${this.near} failed: the rig cannot ${action === TCOOFF ? 'freeze' : 'thaw'} its wire`);
    }
  }

  /** Unplugs and removes the directory. Idempotent. */
  async close(): Promise<void> {
    await this.unplug();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
