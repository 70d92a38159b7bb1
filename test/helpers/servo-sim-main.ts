/**
 * The servo simulator in a process of its own, for a bench: pacing busy-waits up to a
 * millisecond before each reply, which must not stall the bus being measured.
 *
 *   node --import tsx test/helpers/servo-sim-main.ts '{"protocol":"feetech","servos":[…],"baud":1000000}'
 *
 * with the master of the pty it answers on as its fd 3 (held-pty.ts's `master`, inherited
 * through spawn's stdio). Prints `ready` when it answers; exits when its stdin closes (its parent
 * went) or on SIGTERM.
 */
import { farEndOn } from './held-pty.js';
import { ServoSim, type ServoSimOptions } from './servo-sim.js';

/** Where the parent put the pty's master. */
const MASTER_FD = 3;

const [json] = process.argv.slice(2);
if (json === undefined) {
  process.stderr.write('usage: servo-sim-main.ts OPTIONS_JSON (the pty master as fd 3)\n');
  process.exit(2);
}
const sim = ServoSim.open(farEndOn(MASTER_FD, 'the simulator\'s pty'), JSON.parse(json) as ServoSimOptions);
const stop = (): void => {
  sim.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.stdin.on('end', stop).resume();
process.stdout.write('ready\n');
