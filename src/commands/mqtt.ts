/** `quackd mqtt credentials`: the embedded broker's logins, as Home Assistant or Node-RED takes them. */
import { parseFlags } from '../cli/args.js';
import { EXIT, UsageError } from '../cli/errors.js';
import { loadConfigFile } from '../config/file.js';
import { dataDir } from '../config/paths.js';
import { InputError } from '../errors.js';
import { credentialsPath, readCredentials } from '../mqtt/credentials.js';
import { SERVICE_USER } from '../mqtt/config.js';
import { resolveMqttSettings } from '../mqtt/settings.js';
import type { Command } from './command.js';
import type { Invocation } from '../cli/invocation.js';
import { dirname } from 'node:path';

const help = `usage: quackd mqtt credentials [--json]

The embedded broker's logins (made by 'quackd serve' at its first start, kept in the data
directory, mode 0640): the user and password to give Home Assistant's MQTT integration or
Node-RED, and what each may do. The config's mqtt.users names them and their rights:
  mqtt:
    users:
      homeassistant: { may: [command, confirm] }

example:
  quackd mqtt credentials`;

export const mqttCommand: Command = {
  name: 'mqtt',
  help,
  subcommands: true,
  async run(argv: readonly string[], { io, env }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('mqtt', argv, { json: { type: 'boolean' } });
    if (positionals[0] !== 'credentials' || positionals.length > 1) throw new UsageError(`mqtt: ${positionals[0] === undefined ? 'which sub-command?' : `unknown sub-command "${positionals[0]}"`}`, "use 'quackd mqtt credentials'");
    const file = await loadConfigFile(env);
    const settings = resolveMqttSettings(file.config.mqtt, dirname(file.path));
    if (settings === undefined) throw new InputError('MQTT is off (mqtt: false in the config)');
    if (settings.broker.kind === 'external') throw new InputError(`quackd uses the broker at ${settings.broker.url}: its logins are that broker's own (quackd made none)`);
    const dir = dataDir(env);
    const passwords = readCredentials(dir, true);
    if (passwords === undefined) throw new InputError(`no logins yet in ${credentialsPath(dir)}: 'quackd serve' makes them at its first start`);
    const rows = Object.entries(settings.users).map(([user, { may }]) => ({ user, password: passwords.get(user) ?? null, may: [...may] }));
    const broker = { host: settings.broker.host, port: settings.broker.port };
    if (flags.json === true) {
      io.line(JSON.stringify({ broker, file: credentialsPath(dir), users: rows }));
      return EXIT.ok;
    }
    io.line(`embedded broker ${broker.host}:${broker.port} · logins in ${credentialsPath(dir)}`);
    for (const r of rows) {
      const may = r.may.length === 0 ? 'reads only' : `may ${r.may.join(', ')}`;
      io.line(`  user ${r.user}  password ${r.password ?? io.dim("(none yet: the service's next start makes it)")}  ${io.dim(may)}`);
    }
    io.line(io.dim(`give Home Assistant (MQTT integration) or Node-RED the broker ${broker.host}, port ${broker.port}, one user and its password; "${SERVICE_USER}" is the service's own`));
    return EXIT.ok;
  },
};
