/**
 * `quackd config check`: the effective configuration and where each value came from (flag,
 * environment, config file, default), so a person over SSH can see what a run will use. Never
 * prints a key, only whether one was found and where.
 */
import { parseFlags } from '../cli/args.js';
import { EXIT, QuackdError, UsageError } from '../cli/errors.js';
import { printable, type Output } from '../cli/output.js';
import { loadApiKey, type KeyedProvider } from '../config/api-key.js';
import { loadConfigFile } from '../config/file.js';
import { dataDir, memoryDir, transcriptsDir, userDucksDir } from '../config/paths.js';
import { resolvePilotSettings } from '../config/pilot.js';
import { createProvider } from '../pilot/providers/index.js';
import { RUN_WAIT_MS } from '../memory/open-run-memory.js';
import { WAIT_MS } from '../memory/store.js';
import { Fleet, RobotSettingsError } from '../runtime/fleet.js';
import { didYouMean } from '../text/suggest.js';
import type { Command } from './command.js';

const help = `usage: quackd config check [--json]

Reads ~/.quackd/config.yaml (QUACKD_HOME moves it) and the environment, checks them, and prints
the effective settings with where each came from. A bad config file is reported with its lines
(exit 2). API keys are never printed: only whether one was found, and where.

example:
  quackd config check`;

function keyStatus(provider: string, keyFile: string | undefined, fromFlag: boolean): string {
  if (provider !== 'openai' && provider !== 'anthropic') return 'not needed';
  const { key, source } = loadApiKey(provider as KeyedProvider, keyFile, fromFlag, process.env);
  return key === undefined ? 'none found' : `found (${source})`;
}

/** The setting a fleet robot still lacks (its file entry left it to a flag), if any. */
function incomplete(fleet: Fleet, name: string): { missing?: string } {
  try {
    fleet.resolve(name);
    return {};
  } catch (err) {
    return err instanceof RobotSettingsError && err.problem === 'missing' ? { missing: err.setting } : {};
  }
}

export const configCommand: Command = {
  name: 'config',
  help,
  async run(argv: readonly string[], io: Output): Promise<number> {
    const { flags, positionals } = parseFlags('config', argv, { json: { type: 'boolean' } });
    const [sub = 'check'] = positionals;
    if (sub !== 'check') {
      const hint = didYouMean(sub, ['check']);
      throw new UsageError(`config: unknown sub-command "${sub}"${hint}`, hint === '' ? "use 'check'" : undefined);
    }
    const file = await loadConfigFile();
    const fleet = new Fleet(file.config.robots ?? {});
    const pilot = await resolvePilotSettings({});
    // The same checks a run makes before it starts (known provider, a model, a key for a cloud).
    const problem = await createProvider({}).then(
      () => undefined,
      (err: unknown) => {
        if (err instanceof QuackdError) return `${err.message}${err.hint !== undefined ? ` (${err.hint})` : ''}`;
        throw err;
      },
    );
    const report = {
      configFile: { path: file.path, exists: file.exists },
      dataDir: dataDir(),
      transcripts: transcriptsDir(),
      memory: memoryDir(),
      memoryFrom: process.env['QUACKD_MEMORY_DIR'] ? 'QUACKD_MEMORY_DIR' : 'default',
      memoryWaitS: { open: WAIT_MS.open / 1000, write: WAIT_MS.write / 1000, remember: RUN_WAIT_MS.remember / 1000, episode: RUN_WAIT_MS.episode / 1000 },
      ducks: userDucksDir(),
      robots: fleet.list().map((r) => ({ name: r.name, body: r.key, ...incomplete(fleet, r.name), settings: Object.fromEntries(Object.entries(r.settings).map(([k, v]) => [k, { value: v, from: r.sources[k] ?? 'default' }])) })),
      pilot: {
        provider: { value: pilot.provider, from: pilot.sources.provider },
        model: { value: pilot.model ?? null, from: pilot.sources.model },
        baseUrl: { value: pilot.baseUrl ?? null, from: pilot.sources.baseUrl },
        timeoutS: pilot.timeoutMs / 1000,
        retries: pilot.retries,
        keyFile: pilot.keyFile ?? null,
        apiKey: keyStatus(pilot.provider, pilot.keyFile, pilot.keyFileFromFlag),
      },
      valid: problem === undefined,
      ...(problem !== undefined ? { problem } : {}),
    };
    if (flags.json === true) {
      io.line(JSON.stringify(report));
      return problem === undefined ? EXIT.ok : EXIT.usage;
    }
    const row = (k: string, v: string, from?: string): void => io.line(`  ${k.padEnd(12)} ${v}${from !== undefined ? io.dim(`  (${from})`) : ''}`);
    io.line(`config file  ${file.path}${file.exists ? '' : io.dim('  (absent: built-in defaults)')}`);
    io.line('paths');
    row('data', report.dataDir);
    row('transcripts', report.transcripts);
    row('memory', report.memory, report.memoryFrom);
    row('ducks', report.ducks);
    const w = report.memoryWaitS;
    row('memory wait', `open ${w.open} s · write ${w.write} s · remember ${w.remember} s · episode ${w.episode} s`, 'built in');
    io.line(report.robots.length > 0 ? 'robots' : `robots       ${io.dim('none in the config file: --robot takes a body key (quackd bodies)')}`);
    for (const r of report.robots) {
      const settings = Object.entries(r.settings).map(([k, v]) => `${k} ${printable(String(v.value))}${io.dim(` (${v.from})`)}`);
      row(printable(r.name), `${r.body}${settings.length > 0 ? `  ${settings.join(', ')}` : ''}${r.missing !== undefined ? io.yellow(`  needs ${r.missing}: give --${r.missing} to a run`) : ''}`);
    }
    io.line('pilot');
    row('provider', pilot.provider, pilot.sources.provider);
    row('model', pilot.model ?? '-', pilot.sources.model);
    row('base url', pilot.baseUrl ?? '-', pilot.sources.baseUrl);
    row('timeout', `${report.pilot.timeoutS} s`);
    row('retries', String(pilot.retries));
    row('api key', report.pilot.apiKey);
    if (problem !== undefined) {
      io.line(`${io.red(io.fail)} a run would stop here: ${problem}`);
      return EXIT.usage;
    }
    io.line(`${io.green(io.ok)} config is valid`);
    return EXIT.ok;
  },
};
