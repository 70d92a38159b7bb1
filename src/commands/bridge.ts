/**
 * `quackd bridge probe --port PATH`: for SSH maintenance on the robot. Says hello to the firmware,
 * prints what it announced, the frame error counters on both ends and a live round-trip time
 * (median of --pings heartbeats). Never switches torque on.
 */
import { EXIT, RuntimeError } from '../cli/errors.js';
import { numberFlag, parseFlags, soleSubCommandPort } from '../cli/args.js';
import type { Output } from '../cli/output.js';
import { plural } from '../text/plural.js';
import { BridgeClient, type ClientCounters } from '../bridge/client.js';
import { BridgeError, RequestTimeoutError } from '../bridge/errors.js';
import { askHello } from '../bridge/hello.js';
import type { BridgeState, Hello } from '../bridge/protocol.js';
import { DEFAULT_BAUD, SerialLink, portHint } from '../bridge/serial.js';
import type { Command } from './command.js';

const HELP = `usage: quackd bridge probe --port PATH [--baud N] [--pings N] [--timeout S] [--json]

Say hello to a duck's firmware over serial and report what it says, the frame error
counters on both ends and the round-trip time (median of N heartbeats). Read-only:
torque is never switched on. A link that counted CRC or framing errors (on either end) is
a warning on stderr and exit 3: check the cable, the port and --baud.

options:
  --port PATH   the serial device; prefer the stable /dev/serial/by-id/... name
  --baud N      baud rate (default ${DEFAULT_BAUD})
  --pings N     heartbeats to time (default 20)
  --timeout S   seconds to wait for each answer (default 1; more for a board that is
                emulated or very busy)
  --json        one JSON object on stdout, for scripts

example: quackd bridge probe --port /dev/serial/by-id/usb-Raspberry_Pi_Pico_E6614103E7-if00`;

/** Seconds a probe waits for each answer: a duck's firmware answers within milliseconds. */
const DEFAULT_TIMEOUT_S = 1;

export interface ProbeReport {
  readonly port: string;
  readonly baud: number;
  readonly hello: Hello;
  readonly state: BridgeState;
  readonly host_rx: ClientCounters;
  readonly rtt_ms: { readonly median: number; readonly min: number; readonly max: number; readonly pings: number };
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
}

async function probe(port: string, baud: number, pings: number, timeoutMs: number): Promise<ProbeReport> {
  // As patient with every ping as with hello: on a busy robot one slow answer should not fail the probe.
  const client = new BridgeClient({ timeoutMs });
  let link: SerialLink;
  try {
    link = await SerialLink.open(client, { path: port, baud, reconnect: false });
  } catch (err) {
    client.close();
    if (err instanceof BridgeError) throw new RuntimeError(err.message, err.hint);
    throw err;
  }
  try {
    const hello = await askHello(client, timeoutMs);
    const rtts: number[] = [];
    for (let i = 0; i < pings; i++) rtts.push(await client.ping());
    const state = await client.getState();
    return {
      port,
      baud,
      hello,
      state,
      host_rx: client.counters(),
      rtt_ms: { median: median(rtts), min: Math.min(...rtts), max: Math.max(...rtts), pings },
    };
  } catch (err) {
    if (err instanceof RequestTimeoutError) {
      throw new RuntimeError(`no answer from the firmware on ${port}: ${err.message}`, `is it running quackd-fw, at ${baud} baud (--baud)?`);
    }
    if (err instanceof BridgeError) throw new RuntimeError(err.message);
    throw err;
  } finally {
    client.close();
    await link.close();
  }
}

/**
 * The link's damage in this report: CRC errors and framing errors (malformed, overlong, runt),
 * counted on the host and on the duck. Bad JSON in an intact frame is the firmware's, not the
 * link's, and is not counted here.
 */
export function linkErrors(r: ProbeReport): { readonly crc: number; readonly framing: number } {
  const framing = (c: { malformed: number; overlong: number; runt: number }): number => c.malformed + c.overlong + c.runt;
  return { crc: r.host_rx.crc + r.state.rx.crc, framing: framing(r.host_rx) + framing(r.state.rx) };
}

function print(io: Output, r: ProbeReport): void {
  const h = r.hello;
  const s = r.state;
  const c = r.host_rx;
  const label = (t: string): string => io.dim(t.padEnd(10));
  io.line(`${label('port')}${r.port} at ${r.baud} baud`);
  io.line(`${label('firmware')}${h.firmware} on ${h.board} · protocol ${h.protocol} · boot ${h.boot}`);
  io.line(`${label('joints')}${h.joints.length}:`);
  const width = Math.max(...h.joints.map((j) => j.length));
  h.joints.forEach((name, i) => {
    const lo = h.lower[i] ?? 0;
    const hi = h.upper[i] ?? 0;
    const at = s.pos[i];
    io.line(`${' '.repeat(12)}${name.padEnd(width)}  [${lo.toFixed(2)}, ${hi.toFixed(2)}] rad${at !== undefined ? `  now ${at.toFixed(3)}` : ''}`);
  });
  io.line(`${label('state')}${h.state_hz} Hz stream · watchdog ${h.watchdog_ms} ms · torque ${s.torque ? 'on' : 'off'} · battery ${s.battery_v.toFixed(2)} V`);
  io.line(`${label('host rx')}ok ${c.ok} · crc ${c.crc} · malformed ${c.malformed} · overlong ${c.overlong} · runt ${c.runt} · bad json ${c.json} · timeouts ${c.timeouts}${c.cut > 0 ? ` · cut ${c.cut} (joined mid-frame)` : ''}`);
  io.line(`${label('duck rx')}ok ${s.rx.ok} · crc ${s.rx.crc} · malformed ${s.rx.malformed} · overlong ${s.rx.overlong} · runt ${s.rx.runt} · bad json ${s.rx.json} · tx dropped ${s.tx_dropped}`);
  const t = r.rtt_ms;
  io.line(`${label('rtt')}median ${t.median.toFixed(2)} ms over ${t.pings} pings (min ${t.min.toFixed(2)}, max ${t.max.toFixed(2)})`);
}

export const bridgeCommand: Command = {
  name: 'bridge',
  help: HELP,
  async run(argv, { io }) {
    const { flags, positionals, help } = parseFlags('bridge', argv, {
      port: { type: 'string' },
      baud: { type: 'string' },
      pings: { type: 'string' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (help) {
      io.line(HELP);
      return 0;
    }
    const port = await soleSubCommandPort('bridge', 'probe', positionals, flags.port, "try 'quackd bridge probe --port PATH'", portHint);
    const baud = numberFlag('baud', flags.baud, { int: true, min: 1 }) ?? DEFAULT_BAUD;
    const pings = numberFlag('pings', flags.pings, { int: true, min: 1 }) ?? 20;
    const timeoutS = numberFlag('timeout', flags.timeout, { min: 0.01 }) ?? DEFAULT_TIMEOUT_S;
    const report = await probe(port, baud, pings, timeoutS * 1000);
    const errors = linkErrors(report);
    if (flags.json === true) io.line(JSON.stringify({ ...report, link_errors: errors }));
    else print(io, report);
    // The probe answered, but over a damaged link: a maintenance script must not read "all well".
    if (errors.crc + errors.framing > 0) {
      io.err.write(`quackd: warning: the link to ${port} counted ${plural(errors.crc, 'CRC error')} and ${plural(errors.framing, 'framing error')} (check the cable, the port and --baud ${baud})\n`);
      return EXIT.runtime;
    }
    return EXIT.ok;
  },
};
