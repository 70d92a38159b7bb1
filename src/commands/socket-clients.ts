/**
 * The verbs that only ask the running service over its control socket. They are a table of their
 * own because the bundle's launcher (cross/launcher.ts) answers them without loading the rest of
 * quackd: they are what a person types to see if the robot is all right, and on a Pi Zero 2 W
 * every 100 ms here is about a second there.
 */
import type { CommandTable } from './command.js';

export const socketClients: CommandTable = {
  status: { summary: 'what the running service is doing: robots, runs, gates, loops, memory, front doors', load: async () => (await import('./status.js')).statusCommand },
  stop: { summary: 'emergency stop through the running service: one robot, or all of them', load: async () => (await import('./stop.js')).stopCommand },
  confirm: { summary: "answer the confirmation gate a robot's run in the service is waiting on (yes or no)", load: async () => (await import('./confirm.js')).confirmCommand },
};
