/**
 * `quackd serve`'s life: the first log line (build, version, pid, config), the control socket
 * claimed first (a second service is refused before it opens a port), then the runtime and the
 * service (held bodies open; nothing moves), then the other front doors in their order. Stopping
 * is the reverse, once: the runs stop (bodies stop, transcripts close), the front doors stop
 * (MQTT says offline while the store is still open), then the runtime closes bodies and store.
 */
import { configPath, loadConfigFile, type ConfigFile } from '../config/file.js';
import { dataDir, ensurePrivateDir, memoryDir, transcriptsDir, userDucksDir } from '../config/paths.js';
import { runtimeEmbeddings } from '../memory/embedding-settings.js';
import { recordingConfig } from '../recording/runtime-config.js';
import { retentionPolicy } from '../transcript/retention.js';
import { logger } from '../log.js';
import { createProvider } from '../pilot/providers/index.js';
import type { Provider } from '../pilot/providers/provider.js';
import { createRuntime } from '../runtime/runtime.js';
import { VERSION } from '../version.js';
import { buildStamp } from './build.js';
import type { FrontDoor } from './front-door.js';
import { Service } from './service.js';
import { socketPath } from './socket/path.js';
import { ControlSocket } from './socket/server.js';

export interface ServeOptions {
  /** The environment the service reads: QUACKD_CONFIG names the config file `--config` chose. */
  readonly env: NodeJS.ProcessEnv;
  /** The front doors after the control socket, in the order they start (MQTT, sd_notify …); they stop in reverse. */
  readonly doors?: (service: Service, config: ConfigFile) => readonly FrontDoor[];
  /** The pilot of each run (tests); default: the config file's `pilot:` as it was read at the start, not as it is now. */
  readonly pilot?: () => Promise<Provider>;
}

export interface Serving {
  readonly service: Service;
  readonly socket: string;
  readonly config: string;
  /** Stops everything, in order; `why` ends the runs' outcomes (`stopped by SIGTERM`). Once. */
  stop(why: string): Promise<void>;
}

export async function startService(options: ServeOptions): Promise<Serving> {
  const { env } = options;
  const log = logger('service');
  const config = configPath(env);
  const startedAt = new Date();
  const build = buildStamp();
  // The pid is every JSON line's already (pino's base); said in words too for a terminal's line.
  log.info({ build, version: VERSION, config }, `quackd serve starting (pid ${process.pid})`);
  const file = await loadConfigFile(env);
  ensurePrivateDir(dataDir(env));
  const runtime = createRuntime({ ...(file.config.robots !== undefined ? { robots: file.config.robots } : {}), memoryDir: memoryDir(undefined, env), ...runtimeEmbeddings(file.config, env), transcriptsDir: transcriptsDir(env), retention: retentionPolicy(file.config.transcripts), ...recordingConfig(file.config, env), dataDir: dataDir(env) });
  const settings = file.config.service ?? {};
  const service = new Service({ runtime, env, ducksDir: userDucksDir(env), ...(settings.gate_timeout_s !== undefined ? { gateTimeoutMs: settings.gate_timeout_s * 1000 } : {}), pilot: options.pilot ?? (() => createProvider({}, env, file)) });
  const socket = socketPath(env);
  const control = new ControlSocket(service, {
    path: socket,
    ...(settings.socket_group !== undefined ? { group: settings.socket_group } : {}),
    info: () => ({ pid: process.pid, version: VERSION, build, config, startedAt: startedAt.toISOString(), uptimeS: Math.round((Date.now() - startedAt.getTime()) / 1000), socket }),
  });
  const started: FrontDoor[] = [];
  let stopping: Promise<void> | undefined;
  const stop = (why: string): Promise<void> =>
    (stopping ??= (async () => {
      log.info({ why }, 'quackd serve stopping');
      await Promise.all(started.map((door) => door.stopping?.(why).catch(() => undefined)));
      await service.stopRuns(why);
      for (const door of [...started].reverse()) {
        await door.stop().catch((err: unknown) => log.warn({ door: door.name, err: err instanceof Error ? err.message : String(err) }, 'a front door did not stop cleanly'));
      }
      await runtime.stop();
      log.info('quackd serve stopped');
    })());
  // First: a second service is refused here, before it touches a body.
  await control.start();
  service.attach(control);
  started.push(control);
  try {
    await runtime.start();
    await service.start();
    for (const door of options.doors?.(service, file.config) ?? []) {
      await door.start(service);
      service.attach(door);
      started.push(door);
    }
  } catch (err) {
    await stop('a failed start');
    throw err;
  }
  log.info({ robots: service.robots().map((r) => r.robot), socket, doors: started.map((d) => d.name) }, 'quackd serve ready');
  return { service, socket, config, stop };
}
