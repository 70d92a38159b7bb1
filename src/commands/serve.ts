/**
 * `quackd serve`: the boot-time service (src/service/lifecycle.ts) in the foreground, until a
 * signal stops it. Logs at info (journald keeps them under systemd); QUACKD_LOG_LEVEL changes that.
 */
import { parseFlags } from '../cli/args.js';
import { defaultAddress } from '../cli/listen.js';
import { FOXGLOVE_HOST, FOXGLOVE_PORT, type FoxgloveSection } from '../foxglove/config.js';
import { foxgloveDoor } from '../foxglove/door.js';
import { FOXGLOVE_LISTEN, foxgloveSettings, type FoxgloveFlags } from './foxglove-settings.js';
import { UsageError } from '../cli/errors.js';
import type { Invocation } from '../cli/invocation.js';
import { dirname } from 'node:path';
import { configPath, withConfigFlag, type ConfigFile } from '../config/file.js';
import { groupId } from '../config/os-group.js';
import { dataDir } from '../config/paths.js';
import { createLogRoot, logger, withLogs } from '../log.js';
import { publicConfig } from '../mqtt/bridge-info.js';
import { memoryShareDoor } from '../mqtt/memory-share-door.js';
import { mqttServiceDoor } from '../mqtt/service-door.js';
import { startService } from '../service/lifecycle.js';
import { notifyDoor } from '../service/notify-door.js';
import { RestartRequest } from '../service/restart.js';
import { stopOnSignals } from '../service/signals.js';
import { summaryDoor } from '../service/summary.js';
import { HeapTrimDoor } from '../service/heap-trim.js';
import type { FrontDoor } from '../service/front-door.js';
import type { Service } from '../service/service.js';
import type { Command } from './command.js';

const help = `usage: quackd serve [--config PATH] [--foxglove [ADDR:PORT]] [--foxglove-token-file FILE]

Runs quackd as a service: opens the fleet of the config file (robots:), holds serial robots' links
(nothing moves at start), and runs ducks on request, one at a time per robot, from the CLI over
the control socket (<data dir>/quackd.sock, the owner's alone unless service.socket_group names a
group) and from the other front doors. SIGTERM or Ctrl-C stops the runs (bodies stop), then the
front doors, then closes the memory store, and exits 0 within 5 s.

options:
  --foxglove [ADDR:PORT]      the robots live in Foxglove: a Foxglove WebSocket server (default
                              ${FOXGLOVE_HOST}:${FOXGLOVE_PORT}; or foxglove: { listen: ADDR:PORT } in the config)
                              with a recording's channels; any address but loopback needs a token
  --foxglove-token-file FILE  that token, in a 0600 file (or QUACKD_FOXGLOVE_TOKEN, or
                              foxglove: { token_file: FILE }); a client gives it as ?token= in the URL

The config file: --config PATH, else /etc/quackd/config.yaml when it exists, else
~/.quackd/config.yaml (QUACKD_HOME moves it). 'quackd config check --config PATH' checks it.

From another terminal (over SSH): quackd status · quackd stop [ROBOT] · quackd run DUCK ·
quackd transcript follow · quackd logs

examples:
  quackd serve
  quackd serve --config /etc/quackd/config.yaml
  quackd serve --foxglove                          # ws://${FOXGLOVE_HOST}:${FOXGLOVE_PORT} in Foxglove
  quackd serve --foxglove 0.0.0.0:${FOXGLOVE_PORT} --foxglove-token-file ~/.quackd/foxglove-token`;

/** The live Foxglove server's door, when a flag or the config asks for one (the flag wins). */
function foxgloveFrom(flags: FoxgloveFlags, section: FoxgloveSection | undefined, env: NodeJS.ProcessEnv): FrontDoor | undefined {
  const s = foxgloveSettings(flags, section, env);
  return s === undefined ? undefined : foxgloveDoor({ host: s.host, port: s.port, ...(s.token !== undefined ? { token: s.token } : {}) });
}

/**
 * The front doors after the control socket, in the order they start; they stop in reverse, after
 * the runs and before the store closes (MQTT says offline while the store is open). sd_notify is
 * last: READY=1 once everything else serves.
 */
export function serveDoors(env: NodeJS.ProcessEnv, restart?: RestartRequest, foxglove: FoxgloveFlags = {}): (service: Service, config: ConfigFile) => FrontDoor[] {
  return (service, config) => {
    const file = configPath(env);
    const group = config.service?.socket_group ?? (groupId('quackd') !== undefined ? 'quackd' : undefined);
    const mqtt = mqttServiceDoor(config.mqtt, dirname(file), { config: { file, content: publicConfig(config) }, dataDir: dataDir(env), ...(group !== undefined ? { credentialsGroup: group } : {}), ...(config.memory?.share_topic !== undefined ? { memoryTopic: config.memory.share_topic } : {}), ...(restart !== undefined ? { restart } : {}) });
    const live = foxgloveFrom(foxglove, config.foxglove, env);
    const share = memoryShareDoor(config.memory, config.mqtt, dirname(file), {
      store: async () => (await service.runtime.memory()).store,
      dataDir: dataDir(env),
      // One robot per body speaks for it: the first in the config that holds it.
      bodies: () => [...new Map([...service.runtime.fleet.list()].reverse().map((r) => [r.key, { key: r.key, robot: r.name }])).values()],
    });
    return [...(mqtt !== undefined ? [mqtt] : []), ...(share !== undefined ? [share] : []), ...(live !== undefined ? [live] : []), summaryDoor(logger('service'), () => mqtt?.mqtt()?.status().dropped), new HeapTrimDoor(logger('service')), notifyDoor({ env })];
  };
}

export const serveCommand: Command = {
  name: 'serve',
  help,
  async run(argv: readonly string[], { io, env: given }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('serve', defaultAddress(argv, FOXGLOVE_LISTEN), { config: { type: 'string' }, foxglove: { type: 'string' }, 'foxglove-token-file': { type: 'string' } });
    if (flags['foxglove-token-file'] !== undefined && flags.foxglove === undefined) throw new UsageError('serve: --foxglove-token-file is for --foxglove', "see 'quackd serve --help'");
    if (positionals.length > 0) throw new UsageError(`serve: takes no arguments (got "${positionals[0] ?? ''}")`, "see 'quackd serve --help'");
    const env = withConfigFlag(given, flags.config);
    // A service's log is its record: info by default, where a command stays at warn.
    const root = createLogRoot({ ...env, QUACKD_LOG_LEVEL: env['QUACKD_LOG_LEVEL'] ?? 'info' }, io.err);
    return withLogs(root, async () => {
      // MQTT's bridge/request/restart: the same stop as SIGTERM, then the exit code systemd restarts on.
      const restart = new RestartRequest(env);
      const foxglove = { ...(flags.foxglove !== undefined ? { listen: flags.foxglove } : {}), ...(flags['foxglove-token-file'] !== undefined ? { tokenFile: flags['foxglove-token-file'] } : {}) };
      // Signals are taken before the start: one that came while the service opened its bodies
      // (systemd stopping a unit still starting) found no listener and the process died at once,
      // its bodies and store half open; it now stops the service once started. `starting` is set
      // before any signal is taken: a handler runs on a later turn of the event loop.
      const stopped = stopOnSignals(async (why) => (await starting).stop(why), undefined, restart);
      const starting = startService({ env, doors: serveDoors(env, restart, foxglove) });
      await starting;
      return stopped;
    });
  },
};
