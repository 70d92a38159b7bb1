/**
 * The cable between a held pty (held-pty.ts) and a far end that is a program of its own, which
 * the rig unplugs and plugs back in while that program runs on (the host firmware with --reopen,
 * a duck on its own battery while its USB cable is out). A pty's master has no path a program
 * could open again (opening /dev/ptmx makes a new pty), so the master goes over a unix socket the
 * program inherits: one byte an event, 'p' with the master attached (SCM_RIGHTS), 'u' alone when
 * pulled out (firmware-bridge/hal/host/cable.h reads them).
 */
import { closeSync } from 'node:fs';
import koffi from 'koffi';

interface Sockets {
  pair(domain: number, type: number, protocol: number, fds: number[]): number;
  send(fd: number, message: MessageHeader, flags: number): number;
}

interface MessageHeader {
  readonly msg_name: null;
  readonly msg_namelen: number;
  readonly msg_iov: readonly { readonly iov_base: Buffer; readonly iov_len: number }[];
  readonly msg_iovlen: number;
  readonly msg_control: Buffer | null;
  readonly msg_controllen: number;
  readonly msg_flags: number;
}

let sockets: Sockets | undefined;

function loadSockets(): Sockets {
  if (sockets !== undefined) return sockets;
  const c = koffi.load('libc.so.6');
  koffi.struct('quackd_iovec', { iov_base: 'void *', iov_len: 'size_t' });
  koffi.struct('quackd_msghdr', {
    msg_name: 'void *',
    msg_namelen: 'uint32_t',
    msg_iov: 'quackd_iovec *',
    msg_iovlen: 'size_t',
    msg_control: 'void *',
    msg_controllen: 'size_t',
    msg_flags: 'int',
  });
  const fn = <T>(definition: string): T => c.func(definition) as T;
  sockets = {
    pair: fn('int socketpair(int domain, int type, int protocol, _Out_ int *fds)'),
    send: fn('intptr_t sendmsg(int fd, const quackd_msghdr *message, int flags)'),
  };
  return sockets;
}

/** Linux's values (every architecture quackd's tests run on). */
const AF_UNIX = 1;
const SOCK_STREAM = 1;
const SOCK_CLOEXEC = 0o2000000;
const SOL_SOCKET = 1;
const SCM_RIGHTS = 1;
const MSG_NOSIGNAL = 0x4000;
/** struct cmsghdr on 64-bit Linux: len (size_t), level, type, then one int, padded to 8. */
const CMSG_BYTES = 24;

export class PtyCable {
  private ours: number;
  /** The program's end, handed to it as it starts (spawn's stdio) and closed here by started(). */
  private theirs: number | undefined;

  constructor() {
    const fds = [-1, -1];
    // Close-on-exec both: only the program the rig means it for inherits its end (through spawn's stdio).
    if (loadSockets().pair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) !== 0) throw new Error('socketpair failed: the rig has no cable for the firmware');
    const [ours, theirs] = fds;
    if (ours === undefined || theirs === undefined) throw new Error('socketpair returned no sockets');
    this.ours = ours;
    this.theirs = theirs;
  }

  /** The fd to give the program (once). */
  get programEnd(): number {
    if (this.theirs === undefined) throw new Error('the cable was already handed over');
    return this.theirs;
  }

  /** The program has its end now (it inherited a copy): this process lets go of its own. */
  started(): void {
    if (this.theirs !== undefined) closeSync(this.theirs);
    this.theirs = undefined;
  }

  /** Plug the pty whose master is `master` in at the program's end. */
  plug(master: number): void {
    const control = Buffer.alloc(CMSG_BYTES);
    control.writeBigUInt64LE(BigInt(20), 0); // CMSG_LEN(sizeof(int))
    control.writeInt32LE(SOL_SOCKET, 8);
    control.writeInt32LE(SCM_RIGHTS, 12);
    control.writeInt32LE(master, 16);
    this.send('p', control);
  }

  /** Pull it out: the program closes its copy of the master. */
  pull(): void {
    this.send('u', null);
  }

  /** The program sees its cable's far end go (it exits: nothing will plug in again). Idempotent. */
  close(): void {
    this.started();
    if (this.ours >= 0) closeSync(this.ours);
    this.ours = -1;
  }

  private send(event: 'p' | 'u', control: Buffer | null): void {
    if (this.ours < 0) throw new Error('the cable is closed');
    const byte = Buffer.from(event);
    const sent = loadSockets().send(
      this.ours,
      { msg_name: null, msg_namelen: 0, msg_iov: [{ iov_base: byte, iov_len: 1 }], msg_iovlen: 1, msg_control: control, msg_controllen: control?.length ?? 0, msg_flags: 0 },
      MSG_NOSIGNAL,
    );
    // A program that exited has closed its end: there is no one to plug in, and nothing to say.
    if (sent !== 1 && event === 'p') process.stderr.write(`pty-cable: the firmware did not take the pty (sendmsg returned ${sent})\n`);
  }
}
