/**
 * The CLI's table of verbs. The dispatcher looks a verb up here and imports only that file, so a
 * command starts without loading what other commands need.
 */
import type { CommandTable } from './command.js';
import { socketClients } from './socket-clients.js';

export type { CommandEntry, CommandTable } from './command.js';

export const commands: CommandTable = {
  run: { summary: 'run a .duck on a body (default: the Microduck simulator)', load: async () => (await import('./run.js')).runCommand },
  do: { summary: 'do one verb on a robot (quackd do walk 1.0): a one-step run through the safety executor, no model asked', load: async () => (await import('./do.js')).doCommand },
  torque: { summary: "switch a robot's motors on (asked first on a real body) or off (a stop, never asked)", load: async () => (await import('./torque.js')).torqueCommand },
  ducks: { summary: 'list the bundled starter ducks and your own', load: async () => (await import('./ducks.js')).ducksCommand },
  transcript: { summary: 'list and show run transcripts', load: async () => (await import('./transcript.js')).transcriptCommand },
  recordings: { summary: 'list and prune run recordings (MCAP files to open in Foxglove)', load: async () => (await import('./recordings.js')).recordingsCommand },
  memory: { summary: "show, search and tend a robot's memory (notes and earlier runs)", load: async () => (await import('./memory.js')).memoryCommand },
  bodies: { summary: 'list the bodies quackd can drive (adapter:backend)', load: async () => (await import('./bodies.js')).bodiesCommand },
  config: { summary: 'check the config file and show the effective settings and where each came from', load: async () => (await import('./config.js')).configCommand },
  policy: { summary: "list a robot's skill policies (walk, turn, stand, kicks) and swap one between runs", load: async () => (await import('./policy.js')).policyCommand },
  health: { summary: 'check the config, policies, ONNX runtime and memory store: one line each, exit 1 when one fails', load: async () => (await import('./health.js')).healthCommand },
  serve: { summary: 'run quackd as a service: hold the fleet, take runs from the CLI (over SSH) and front doors', load: async () => (await import('./serve.js')).serveCommand },
  'serve-mcp': { summary: 'serve the robots as MCP tools to a desktop LLM client (stdio, or HTTP with --http), under the same safety contract and memory as runs', load: async () => (await import('./serve-mcp.js')).serveMcpCommand },
  ...socketClients,
  mqtt: { summary: "the embedded MQTT broker's logins to give Home Assistant or Node-RED (quackd mqtt credentials)", load: async () => (await import('./mqtt.js')).mqttCommand },
  logs: { summary: "the running service's log (journalctl -u quackd under systemd)", load: async () => (await import('./logs.js')).logsCommand },
  bridge: { summary: "talk to a duck's firmware over serial (probe: hello, frame errors, round-trip time)", load: async () => (await import('./bridge.js')).bridgeCommand },
  calibrate: { summary: "set a servo-bus duck's joint offsets from the home pose you hold it in (torque off, nothing moves); written into the config", load: async () => (await import('./calibrate.js')).calibrateCommand },
  bus: { summary: 'check the wiring of a Feetech or Dynamixel servo bus (scan: who answers, model, firmware); never writes', load: async () => (await import('./bus.js')).busCommand },
};
