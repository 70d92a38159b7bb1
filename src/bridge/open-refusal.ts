/**
 * Why a serial port that exists would not open, said in the robot builder's words. Both openers
 * (serial.ts on the main thread through serialport, tty.ts in the worker through fs and stty) get
 * the OS's or serialport's text ("Inappropriate ioctl for device setting custom baud rate of
 * 1000000", "Resource temporarily unavailable Cannot lock port"), which names the library's
 * internals; each known cause is one plain clause here, with what to do about it as the hint, so
 * the two paths say the same line of the same port.
 */
import { PortError, type PortTrouble } from './errors.js';

interface Refusal {
  readonly trouble: PortTrouble;
  readonly why: string;
  readonly hint: string;
}

const WHERE_PORTS_ARE = 'a USB serial adapter shows up as /dev/ttyUSB0 or /dev/ttyACM0';

const HELD: Refusal = { trouble: 'held', why: 'another program has it open', hint: 'another quackd run, or a serial monitor?' };

/** The known causes, by what the OS or serialport said. */
function refusalOf(said: string): Refusal | undefined {
  if (/cannot lock|lock port/i.test(said)) return HELD;
  // Membership of a group counts from the next login: adding yourself alone does not let this shell in.
  if (/permission denied|EACCES/i.test(said)) return { trouble: 'no-permission', why: 'no permission', hint: 'add yourself to the dialout group, then log in again' };
  if (/is a directory|EISDIR/i.test(said)) return { trouble: 'not-a-port', why: 'a directory, not a serial port', hint: WHERE_PORTS_ARE };
  if (/not a typewriter|ENOTTY|inappropriate ioctl|not a tty/i.test(said)) return { trouble: 'not-a-port', why: 'not a serial port', hint: WHERE_PORTS_ARE };
  return undefined;
}

/** `cannot open PATH: another program has it open (…)`: the lock's refusal, whichever path took it. */
export function portHeld(path: string): PortError {
  return new PortError(`cannot open ${path}: ${HELD.why}`, HELD.hint, HELD.trouble);
}

/** The one-line error for `path` refused with `said`, or undefined when the cause is not a known one. */
export function refusedPort(path: string, said: string): PortError | undefined {
  const r = refusalOf(said);
  return r === undefined ? undefined : new PortError(`cannot open ${path}: ${r.why}`, r.hint, r.trouble);
}

/** As refusedPort, else the first clause of what was said, without the library's prefixes and the path it repeats. */
export function cannotOpen(path: string, said: string): PortError {
  const first = said.replace(/^Error:?\s*/, '').replace(/^[A-Z]+: /, '').split(/,\s*/)[0] ?? said;
  return refusedPort(path, said) ?? new PortError(`cannot open ${path}: ${first}`);
}
