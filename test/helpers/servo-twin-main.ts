/**
 * The twin-backed servo simulator (servo-twin.ts) in a process of its own, as the servos' own
 * chips are: started by servo-twin-process.ts for the tests and the bench.
 *
 *   node --import tsx test/helpers/servo-twin-main.ts '{"protocol":"feetech","baud":1000000}'
 *
 * Once the twin answers, its main thread goes under SCHED_FIFO (hardware-priority.ts)
 * and it prints one JSON line `{"port":…,"imuPath":…}`. It then answers one JSON request per line
 * on stdin (`{"id":1,"method":"trunk","args":[]}` → `{"id":1,"result":…}` or `{"id":1,"error":…}`),
 * and exits when its stdin closes (its parent went) or on SIGTERM.
 *
 * The priority comes after the set-up on purpose: MuJoCo's WebAssembly is compiled by threads
 * that main waits for, and under SCHED_FIFO beside a loaded machine's normal-priority work a
 * main thread spinning on them held two test files in `wasm-instantiate` for over half an hour.
 */
import { createInterface } from 'node:readline';
import { runThisProcessAsHardware } from './hardware-priority.js';
import { ServoTwin, type ServoTwinOptions } from './servo-twin.js';

const [json] = process.argv.slice(2);
if (json === undefined) {
  process.stderr.write('usage: servo-twin-main.ts OPTIONS_JSON\n');
  process.exit(2);
}
const twin = await ServoTwin.start(JSON.parse(json) as ServoTwinOptions);
runThisProcessAsHardware();

/** What the parent may ask; each answer is plain JSON. */
const methods: Record<string, (...args: number[]) => unknown> = {
  trunk: () => twin.trunk(),
  goalWrites: () => twin.goalWrites,
  goalsOf: (index) => twin.goalsOf(index),
  table: (id) => Array.from(twin.sim.table(id)),
  received: () => twin.sim.received,
  writes: () => twin.sim.writes(),
  silence: (id) => twin.sim.silence(id),
  speak: (id) => twin.sim.silence(id, false),
  raise: (id, bits) => twin.sim.raise(id, bits),
  garble: (id, count) => twin.sim.garble(id, count),
  unplugImu: () => twin.unplugImu(),
  hangImu: () => twin.hangImu(),
  unplug: () => twin.pty.unplug(),
  lag: (ms, windowMs) => twin.sim.lag(ms, windowMs),
  holdReplies: (ms, count) => twin.sim.holdReplies(ms, count),
};

let closing = false;
const stop = (): void => {
  if (closing) return;
  closing = true;
  void twin.close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
const requests = createInterface({ input: process.stdin });
requests.on('close', stop);
requests.on('line', (line) => {
  let id: unknown;
  void (async () => {
    const request = JSON.parse(line) as { id: number; method: string; args?: number[] };
    id = request.id;
    const method = methods[request.method];
    if (method === undefined) throw new Error(`the servo twin has no ${request.method}`);
    return { id, result: (await method(...(request.args ?? []))) ?? null };
  })()
    .catch((err: unknown) => ({ id, error: err instanceof Error ? err.message : String(err) }))
    .then((answer) => process.stdout.write(`${JSON.stringify(answer)}\n`));
});
process.stdout.write(`${JSON.stringify({ port: twin.port, imuPath: twin.imuPath })}\n`);
