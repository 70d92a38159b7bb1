/**
 * `quackd bus scan --port PATH`: the wiring check for a duck whose servos the Pi drives itself
 * (Feetech STS/SCS or Dynamixel on a USB serial-bus board). Pings every id in the range and lists
 * who answered: id, model, firmware, alarms. Read-only: only ping and read are ever sent, so
 * nothing moves and no register changes.
 */
import { EXIT, RuntimeError, UsageError } from '../cli/errors.js';
import { numberFlag, parseFlags, soleSubCommandPort } from '../cli/args.js';
import type { Output } from '../cli/output.js';
import { BridgeError } from '../bridge/errors.js';
import { SerialLink, portHint } from '../bridge/serial.js';
import { DEFAULT_BUS_BAUD, ServoBus } from '../servo-bus/bus.js';
import { BusLostError, ServoBusError } from '../servo-bus/errors.js';
import { MAX_SERVO_ID, PROTOCOLS, type ProtocolName } from '../servo-bus/packet.js';
import { protocolNamed } from '../servo-bus/protocol.js';
import { parseIdRange, scanBus, type ScanResult } from '../servo-bus/scan.js';
import { USUAL_BAUDS, unusualBaud } from '../servo-bus/usual-bauds.js';
import { slowAdapterHint } from '../bridge/latency-timer.js';
import { plural } from '../text/plural.js';
import { didYouMean } from '../text/suggest.js';
import type { Command } from './command.js';

const SCAN_TIMEOUT_MS = 20;

const HELP = `usage: quackd bus scan --port PATH [--protocol feetech|dynamixel] [--baud N] [--ids A-B] [--timeout MS] [--json]

Ping every servo id on a serial servo bus and list the servos that answer: id, model
number and name, firmware version and any alarm (overload, overheat, voltage…). It is
the wiring check before anything moves: only ping and read are sent, never a write,
so no servo moves and no register changes. A reply that came back garbled is a
warning on stderr and exit 3: check the cable, the baud rate and for duplicate ids.

options:
  --port PATH       the serial device; prefer the stable /dev/serial/by-id/... name
  --protocol P      feetech (STS/SCS: Open Duck Mini v2, XLeRobot, AlohaMini) or
                    dynamixel (Protocol 2.0: XL330 ducks); default feetech
  --baud N          baud rate (default ${DEFAULT_BUS_BAUD}; Dynamixel X ships at 57600)
  --ids A-B         the ids to ping, e.g. 1-14 or 1,3,10-12 (default 0-${MAX_SERVO_ID})
  --timeout MS      silence before an id is called empty (default ${SCAN_TIMEOUT_MS})
  --json            one JSON object on stdout, for scripts

example: quackd bus scan --port /dev/serial/by-id/usb-1a86_USB_Single_Serial_5A46-if00 --ids 1-14`;

const TRY = "try 'quackd bus scan --port PATH'";

export interface BusScanReport extends ScanResult {
  readonly port: string;
  readonly protocol: ProtocolName;
  readonly baud: number;
  readonly ids: { readonly from: number; readonly to: number; readonly count: number };
  readonly garbled_replies: number;
  readonly seconds: number;
}

/** Where the other protocol or the factory baud rate is the likelier answer: the baud first when it is not one servos ship at. */
function otherTries(protocol: ProtocolName, baud: number): string {
  const other = protocol === 'feetech' ? 'dynamixel' : 'feetech';
  const usual = unusualBaud(protocol, baud);
  if (usual !== undefined) return `${usual}: try --baud ${USUAL_BAUDS[protocol].join(' or ')}; else is it powered? or try --protocol ${other}`;
  const bauds = [1_000_000, 57_600].filter((b) => b !== baud);
  return `is it powered? try --protocol ${other}, or --baud ${bauds.join(' or ')} (Feetech ships at 1000000, Dynamixel X at 57600)`;
}

async function scan(port: string, protocol: ProtocolName, baud: number, ids: readonly number[], timeoutMs: number, io: Output, json: boolean): Promise<BusScanReport> {
  const bus = new ServoBus({ protocol: protocolNamed(protocol), baud, timeoutMs });
  let link: SerialLink;
  try {
    link = await SerialLink.open(bus, { path: port, baud, reconnect: false });
  } catch (err) {
    bus.close();
    if (err instanceof BridgeError) throw new RuntimeError(err.message, err.hint);
    throw err;
  }
  const started = performance.now();
  const progress = io.interactive && !json;
  try {
    const result = await scanBus(bus, { ids, onId: progress ? (id) => io.err.write(`\rscanning id ${id} (${ids.at(-1) ?? id} last)…`) : undefined });
    if (progress) io.err.write('\r\u001b[K');
    const c = bus.counters();
    return {
      port,
      protocol,
      baud,
      ids: { from: ids[0] ?? 0, to: ids.at(-1) ?? 0, count: ids.length },
      ...result,
      garbled_replies: c.damaged,
      seconds: (performance.now() - started) / 1000,
    };
  } catch (err) {
    // In the same words whichever end saw it first: the read side ending, or a ping's write failing (EIO).
    if (err instanceof BusLostError) throw new RuntimeError(`serial link to ${port} lost during the scan`, 'is the adapter still plugged in?');
    if (err instanceof ServoBusError) throw new RuntimeError(`${err.message} on ${port}`, err.hint);
    throw err;
  } finally {
    bus.close();
    await link.close();
  }
}

function print(io: Output, r: BusScanReport): void {
  io.line(`${io.dim('bus'.padEnd(10))}${r.port} · ${r.protocol} at ${r.baud} baud · ids ${r.ids.from}–${r.ids.to}`);
  if (r.servos.length > 0) {
    io.line(io.dim(`${'id'.padStart(5)}  ${'model'.padEnd(6)}  ${'name'.padEnd(12)}  ${'firmware'.padEnd(8)}  alarms`));
    for (const s of r.servos) {
      io.line(`${String(s.id).padStart(5)}  ${String(s.model).padEnd(6)}  ${(s.name ?? 'unknown').padEnd(12)}  ${s.firmware.padEnd(8)}  ${s.alarms.length > 0 ? io.yellow(s.alarms.join(', ')) : '—'}`);
    }
  }
  for (const id of r.garbled) io.line(`${String(id).padStart(5)}  ${io.yellow('answered, but every reply came back garbled')}`);
  io.line(`${plural(r.servos.length, 'servo')} answered (${r.ids.count} ids pinged in ${r.seconds.toFixed(1)} s)`);
}

export const busCommand: Command = {
  name: 'bus',
  help: HELP,
  async run(argv, { io }) {
    const { flags, positionals, help } = parseFlags('bus', argv, {
      port: { type: 'string' },
      protocol: { type: 'string' },
      baud: { type: 'string' },
      ids: { type: 'string' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
    });
    if (help) {
      io.line(HELP);
      return 0;
    }
    const port = await soleSubCommandPort('bus', 'scan', positionals, flags.port, TRY, portHint);
    const protocol = flags.protocol ?? 'feetech';
    if (!(PROTOCOLS as readonly string[]).includes(protocol)) {
      throw new UsageError(`bus scan: --protocol must be feetech or dynamixel, not "${protocol}"${didYouMean(protocol, PROTOCOLS)}`);
    }
    const baud = numberFlag('baud', flags.baud, { int: true, min: 1 }) ?? DEFAULT_BUS_BAUD;
    const timeoutMs = numberFlag('timeout', flags.timeout, { min: 1, max: 1000 }) ?? SCAN_TIMEOUT_MS;
    let ids: number[];
    try {
      ids = parseIdRange(flags.ids ?? `0-${MAX_SERVO_ID}`, MAX_SERVO_ID);
    } catch (err) {
      throw new UsageError(`bus scan: --ids: ${err instanceof Error ? err.message : String(err)}`);
    }
    const report = await scan(port, protocol as ProtocolName, baud, ids, timeoutMs, io, flags.json === true);
    if (report.servos.length === 0 && report.garbled.length === 0) {
      throw new RuntimeError(`no ${report.protocol} servo answered on ${port} at ${baud} baud (ids ${report.ids.from}–${report.ids.to})`, slowAdapterHint(port, timeoutMs) ?? otherTries(report.protocol, baud));
    }
    if (flags.json === true) io.line(JSON.stringify(report));
    else print(io, report);
    if (report.garbled_replies > 0) {
      io.err.write(`quackd: warning: ${plural(report.garbled_replies, 'garbled reply', 'garbled replies')} on ${port} (check the cable, --baud ${baud}, and that no two servos share an id)\n`);
      return EXIT.runtime;
    }
    return EXIT.ok;
  },
};
