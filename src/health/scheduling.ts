/**
 * `scheduling`: what the robot's control loop would run under when this user runs it:
 * `SCHED_FIFO 10` where they may ask for it (root, CAP_SYS_NICE, or an RLIMIT_RTPRIO of 10 as the
 * shipped unit's LimitRTPRIO=10 gives the quackd user), else normal priority and why: a warning,
 * since on a board whose cores other work keeps busy a loop at normal priority misses ticks
 * (README: the loop on a busy board). Asked for as the loop asks, for a `true` that exits at once.
 * A running service's own loops say what they have on their `loop` lines.
 */
import { fifoRefused, loopSchedulingHere } from '../control/realtime.js';
import { forRobot, ok, warn, type HealthCheck } from './check.js';

export const schedulingCheck: HealthCheck = {
  name: 'scheduling',
  run: (ctx) =>
    forRobot(ctx, (robot) => {
      if (robot.entry.policies !== true) return Promise.resolve(ok(`none needed: ${robot.key} runs no control loop`));
      return loopSchedulingHere().then((here) => (fifoRefused(here) ? warn(`${here.replace(/^normal/, 'normal priority')} for the control loop: ticks may come late on a busy board`) : ok(`${here} for the control loop`)));
    }),
};
