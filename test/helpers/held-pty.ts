/**
 * A pty whose far end this process holds itself: the wire between quackd and a simulator that
 * runs in a node process (the servo simulator, its twin). The master side is opened here
 * (posix_openpt through koffi) and read on the event loop; quackd opens the slave through a
 * symlink at `near`, as it opens a USB adapter's /dev/serial/by-id link. Same shape as PtyPair,
 * whose socat relay stays for a far end that is a program of its own needing a path (the host
 * firmware).
 *
 * Why not socat here: its two ptys put two kernel hand-offs (tty buffer work, run by a kworker
 * at normal priority) and a relay process in each direction. Beside four busy processes a bus
 * cycle waited 100 ms and more in them and a twin's patrol fell about one run in eight; one pty
 * has one hand-off each way, and the simulator, at the rig's priority, reads the master at once.
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

interface Libc {
  openpt(flags: number): number;
  grant(fd: number): number;
  unlock(fd: number): number;
  name(fd: number): string | null;
  getattr(fd: number, termios: Buffer): number;
  makeRaw(termios: Buffer): void;
  setattr(fd: number, when: number, termios: Buffer): number;
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
  };
  return libc;
}

/** glibc's struct termios is 60 bytes; room to spare. */
const TERMIOS_BYTES = 128;
const TCSANOW = 0;
/** Linux's O_CLOEXEC (the generic value: x86, arm, arm64), which node's fs.constants does not list. */
const O_CLOEXEC = 0o2000000;

export class HeldPty {
  readonly dir: string;
  /** The end quackd opens: a symlink to the slave, /dev/pts/N. */
  readonly near: string;
  private end: (FarEnd & { readonly hold: number }) | undefined;

  constructor(prefix = 'quackd-pty-', names: { readonly near: string } = { near: 'host' }) {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    this.near = join(this.dir, names.near);
  }

  /** The end the simulator answers on (ServoSim.open); a new one after each open(). */
  get far(): FarEnd {
    if (this.end === undefined) throw new Error('the pty is unplugged');
    return this.end;
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
      if (sent < bytes.length) process.stderr.write(`held-pty: ${this.near} is full (nothing reads it): ${bytes.length - sent} bytes dropped\n`);
    };
    this.end = { input, write, hold };
    symlinkSync(slave, this.near);
    return this;
  }

  /** Unplug: the master closes (quackd's port hangs up, as a pulled USB adapter's does) and the link goes. */
  async unplug(): Promise<void> {
    const end = this.end;
    this.end = undefined;
    if (end === undefined) return;
    if (existsSync(this.near)) unlinkSync(this.near);
    if (!end.input.destroyed) {
      const closed = new Promise<void>((resolve) => end.input.once('close', () => resolve()));
      end.input.destroy();
      await closed;
    }
    closeSync(end.hold);
  }

  /** Freeze the wire: what quackd writes waits in the kernel until resume(). */
  pause(): void {
    this.end?.input.pause();
  }

  resume(): void {
    this.end?.input.resume();
  }

  /** Unplugs and removes the directory. Idempotent. */
  async close(): Promise<void> {
    await this.unplug();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
