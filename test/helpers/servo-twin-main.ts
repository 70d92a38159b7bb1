/**
 * The twin-backed servo simulator (servo-twin.ts) in a process of its own, for a bench: its
 * pacing busy-waits and the twin's physics must not run on the thread being measured.
 *
 *   node --import tsx test/helpers/servo-twin-main.ts '{"protocol":"feetech","baud":1000000}'
 *
 * Prints one JSON line `{"port":…,"imuPath":…}` when it answers; exits when its stdin closes
 * (its parent went) or on SIGTERM.
 */
import { ServoTwin, type ServoTwinOptions } from './servo-twin.js';

const [json] = process.argv.slice(2);
if (json === undefined) {
  process.stderr.write('usage: servo-twin-main.ts OPTIONS_JSON\n');
  process.exit(2);
}
const twin = await ServoTwin.start(JSON.parse(json) as ServoTwinOptions);
const stop = (): void => {
  void twin.close().finally(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop).resume();
process.stdout.write(`${JSON.stringify({ port: twin.port, imuPath: twin.imuPath })}\n`);
