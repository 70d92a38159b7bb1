/**
 * Bench: the serial bridge over a pty with the host firmware (test/bridge/rig.ts). Request round-trip time and
 * throughput (sequential and pipelined), and the state stream at the firmware's top rate, each
 * printed beside the wire-time limit of the same bytes at the configured baud rate (8N1: 10 bits
 * a byte). ptys ignore the baud rate, so ratio < 1 means the software is faster than a real wire
 * would let it be, and the wire is the bottleneck on a robot; ratio > 1 is software overhead.
 *
 *   node --import tsx bench/bridge-rtt.ts [--baud N]
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { BridgeClient } from '../src/bridge/client.js';
import { encodeFrame } from '../src/bridge/frame.js';
import { encodeMessage, type BridgeState } from '../src/bridge/protocol.js';
import { DEFAULT_BAUD, SerialLink } from '../src/bridge/serial.js';
import { Rig, missingTools, sleep } from '../test/bridge/rig.js';

const frameBytes = (json: unknown): number => encodeFrame(Buffer.from(JSON.stringify(json))).length;
const wireMs = (bytes: number, baud: number): number => (bytes * 10 * 1000) / baud;

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
}

interface Row {
  readonly name: string;
  readonly measured: string;
  readonly wire: string;
  readonly ratio: number;
}

async function rtt(client: BridgeClient, baud: number, n: number): Promise<Row[]> {
  const rows: Row[] = [];
  for (const method of ['heartbeat', 'get_state'] as const) {
    const times: number[] = [];
    let respBytes = 0;
    for (let i = 0; i < n; i++) {
      const start = process.hrtime.bigint();
      const result = await client.request(method, {});
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
      respBytes = frameBytes({ jsonrpc: '2.0', id: 1000, result });
    }
    const reqBytes = encodeFrame(encodeMessage(method, {}, 1000)).length;
    const limit = wireMs(reqBytes + respBytes, baud);
    for (const q of [0.5, 0.99]) {
      const t = quantile(times, q);
      rows.push({
        name: `${method} RTT p${q * 100}`,
        measured: `${t.toFixed(3)} ms`,
        wire: `${limit.toFixed(3)} ms (${reqBytes}+${respBytes} B)`,
        ratio: t / limit,
      });
    }
  }
  return rows;
}

async function pipelined(client: BridgeClient, baud: number, total: number, inFlight: number): Promise<Row> {
  let sent = 0;
  let respBytes = 0;
  const start = process.hrtime.bigint();
  const worker = async (): Promise<void> => {
    while (sent < total) {
      sent++;
      respBytes = frameBytes({ jsonrpc: '2.0', id: 1000, result: await client.request('get_state', {}, 2000) });
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const rate = total / seconds;
  const reqBytes = encodeFrame(encodeMessage('get_state', {}, 1000)).length;
  // Full duplex: requests and responses share no wire, so the longer direction is the limit.
  const limit = baud / 10 / Math.max(reqBytes, respBytes);
  return { name: `get_state pipelined ×${inFlight}`, measured: `${rate.toFixed(0)} msg/s`, wire: `${limit.toFixed(0)} msg/s (${respBytes} B)`, ratio: rate / limit };
}

async function stream(rig: Rig, baud: number, seconds: number): Promise<Row> {
  await rig.killFirmware();
  await rig.startFirmware(['--state-hz', '500']);
  const client = new BridgeClient();
  const link = await SerialLink.open(client, { path: rig.hostPath });
  try {
    await client.hello();
    let n = 0;
    let last: BridgeState | undefined;
    client.on('state', (s) => {
      n++;
      last = s;
    });
    await sleep(seconds * 1000);
    const rate = n / seconds;
    const bytes = frameBytes({ jsonrpc: '2.0', method: 'state', params: last });
    const limit = baud / 10 / bytes;
    return { name: 'state stream (firmware at 500 Hz)', measured: `${rate.toFixed(0)} msg/s`, wire: `${limit.toFixed(0)} msg/s (${bytes} B)`, ratio: rate / limit };
  } finally {
    client.close();
    await link.close();
  }
}

export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<void> {
  const { values } = parseArgs({ args: [...argv], options: { baud: { type: 'string' } } });
  const baud = values.baud !== undefined ? Number(values.baud) : DEFAULT_BAUD;
  const missing = missingTools();
  if (missing !== undefined) {
    console.log(`bridge-rtt: skipped: ${missing}`);
    return;
  }
  const rig = await Rig.start();
  const rows: Row[] = [];
  try {
    const client = new BridgeClient();
    const link = await SerialLink.open(client, { path: rig.hostPath, baud });
    try {
      await client.hello();
      await rtt(client, baud, 50); // warm-up: JIT, pty buffers
      rows.push(...(await rtt(client, baud, 1000)));
      rows.push(await pipelined(client, baud, 2000, 8));
    } finally {
      client.close();
      await link.close();
    }
    rows.push(await stream(rig, baud, 2));
  } finally {
    await rig.cleanup();
  }
  console.log(`bridge-rtt: host firmware over a pty; wire limits at ${baud} baud, 8N1 (ptys ignore baud)`);
  const w = Math.max(...rows.map((r) => r.name.length));
  console.log(`  ${'case'.padEnd(w)}  ${'measured'.padStart(12)}  ${'wire limit'.padStart(26)}  ratio`);
  for (const r of rows) console.log(`  ${r.name.padEnd(w)}  ${r.measured.padStart(12)}  ${r.wire.padStart(26)}  ${r.ratio.toFixed(2)}`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
