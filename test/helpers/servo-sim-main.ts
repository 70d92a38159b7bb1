/**
 * The servo simulator in a process of its own, for a bench: pacing busy-waits up to a
 * millisecond before each reply, which must not stall the bus being measured.
 *
 *   node --import tsx test/helpers/servo-sim-main.ts PATH '{"protocol":"feetech","servos":[…],"baud":1000000}'
 *
 * Prints `ready` when it answers on PATH; exits when its stdin closes (its parent went) or on SIGTERM.
 */
import { ServoSim, type ServoSimOptions } from './servo-sim.js';

const [path, json] = process.argv.slice(2);
if (path === undefined || json === undefined) {
  process.stderr.write('usage: servo-sim-main.ts PATH OPTIONS_JSON\n');
  process.exit(2);
}
const sim = ServoSim.open(path, JSON.parse(json) as ServoSimOptions);
const stop = (): void => {
  sim.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop).resume();
process.stdout.write('ready\n');
