/**
 * Asks a serial driver to hand over each byte as it comes (ASYNC_LOW_LATENCY, through the
 * TIOCGSERIAL/TIOCSSERIAL ioctls, as `setserial PORT low_latency` does). An FTDI adapter (the
 * U2D2 most Dynamixel robots use, many RS-485 boards) otherwise holds a short reply until its
 * latency timer runs out, 16 ms by default on Linux: a servo bus's reply then comes after the
 * transaction has timed out (bus_timeout_ms defaults to 10), and a 50 Hz tick has 20 ms in all.
 * With the flag, ftdi_sio sets the timer to 1 ms; the flag is one a user may set without
 * privilege, and it lasts until the adapter is unplugged. Drivers without the ioctl (a pty, some
 * USB CDC ports) have no such timer: nothing to do. The ioctl goes through koffi, the C FFI
 * quackd already carries for malloc_trim (node has no ioctl); where it cannot load, nothing is asked.
 */
/** What the driver said: `on` (set now, or already), `unsupported` (no such ioctl: no timer to shorten), or why it refused. */
export type LowLatency = 'on' | 'unsupported' | { readonly refused: string };

const TIOCGSERIAL = 0x541e;
const TIOCSSERIAL = 0x541f;
const ASYNC_LOW_LATENCY = 1 << 13;
/** serial_struct's `flags`: its fifth int, on every Linux ABI quackd ships to. */
const FLAGS_AT = 16;
/** Room for serial_struct (72 bytes on 64-bit Linux, 60 on 32-bit). */
const STRUCT_BYTES = 128;
const ENOTTY = 25;
const EINVAL = 22;

type Ioctl = (fd: number, request: number, arg: Uint8Array) => number;
export interface Libc {
  readonly ioctl: Ioctl;
  readonly errno: () => number;
}

let loading: Promise<Libc | null> | undefined;

/** koffi's ioctl and errno, loaded once; null where koffi cannot load (no glibc, no binary for the board). */
function loadLibc(): Promise<Libc | null> {
  loading ??= (async () => {
    try {
      const koffi = (await import('koffi')).default;
      const ioctl = koffi.load('libc.so.6').func('int ioctl(int fd, unsigned long request, _Inout_ uint8_t *arg)') as Ioctl;
      return { ioctl, errno: () => koffi.errno() };
    } catch {
      return null;
    }
  })();
  return loading;
}

/** Sets ASYNC_LOW_LATENCY on the open tty `fd` and reads it back. Never rejects: a port works without it, slower on an FTDI adapter. */
export async function askLowLatency(fd: number, lib?: Libc | null): Promise<LowLatency> {
  const c = lib !== undefined ? lib : await loadLibc();
  if (c === null) return { refused: 'no ioctl here (koffi did not load)' };
  return setFlag(fd, c);
}

function setFlag(fd: number, lib: Libc): LowLatency {
  const serial = new Uint8Array(STRUCT_BYTES);
  const view = new DataView(serial.buffer);
  if (lib.ioctl(fd, TIOCGSERIAL, serial) !== 0) return unsupportedOr(lib.errno());
  const flags = view.getInt32(FLAGS_AT, true);
  if ((flags & ASYNC_LOW_LATENCY) !== 0) return 'on';
  view.setInt32(FLAGS_AT, flags | ASYNC_LOW_LATENCY, true);
  if (lib.ioctl(fd, TIOCSSERIAL, serial) !== 0) return unsupportedOr(lib.errno());
  const back = new Uint8Array(STRUCT_BYTES);
  if (lib.ioctl(fd, TIOCGSERIAL, back) !== 0) return unsupportedOr(lib.errno());
  return (new DataView(back.buffer).getInt32(FLAGS_AT, true) & ASYNC_LOW_LATENCY) !== 0 ? 'on' : { refused: 'the driver kept its latency' };
}

const unsupportedOr = (errno: number): LowLatency => (errno === ENOTTY || errno === EINVAL ? 'unsupported' : { refused: `errno ${errno}` });
