/**
 * `quackd config check`: the effective configuration and where each value came from (flag,
 * environment, config file, default), so a person over SSH can see what a run will use. Never
 * prints a key, only whether one was found and where.
 */
import { dirname } from 'node:path';
import { parseFlags } from '../cli/args.js';
import { EXIT, QuackdError, UsageError } from '../cli/errors.js';
import { fitLine } from '../cli/fit.js';
import { printable } from '../cli/output.js';
import { PILOT_FLAGS, pilotFlags } from '../cli/pilot-flags.js';
import { loadApiKey, type KeyedProvider } from '../config/api-key.js';
import { configSource, loadConfigFile, withConfigFlag } from '../config/file.js';
import { retentionPolicy } from '../transcript/retention.js';
import { dataDir, memoryDir, recordingsDir, transcriptsDir, userDucksDir } from '../config/paths.js';
import { recordingPolicy } from '../recording/retention.js';
import { foxgloveSummary } from './foxglove-settings.js';
import { resolvePilotSettings } from '../config/pilot.js';
import { createProvider } from '../pilot/providers/index.js';
import { mqttSummary } from '../mqtt/settings.js';
import { RUN_WAIT_MS } from '../run/open-run-memory.js';
import { WAIT_MS } from '../memory/store.js';
import { resolveEmbeddings } from '../memory/embedding-settings.js';
import { Fleet, RobotSettingsError, type Robot } from '../runtime/fleet.js';
import { didYouMean } from '../text/suggest.js';
import type { Command } from './command.js';
import type { Invocation } from '../cli/invocation.js';

const help = `usage: quackd config check [--json] [--config PATH] [run's pilot flags] [--memory-dir DIR]

Reads the config file (--config PATH, else /etc/quackd/config.yaml when it exists, else
~/.quackd/config.yaml; QUACKD_HOME moves the last and then reads only its own) and the environment, checks them, and prints
every effective setting with where it came from: a flag, a variable, a line of the config file,
or the default. The flags of 'quackd run' (--provider, --model, --base-url, --timeout, --retries,
--key-file, --memory-dir) show what a run given them would use. A bad config file is reported
with its lines (exit 2). API keys are never printed: only whether one was found, and where.

examples:
  quackd config check
  quackd config check --provider openai --base-url http://localhost:11434/v1 --model qwen2.5-coder:7b`;

function keyStatus(provider: string, keyFile: string | undefined, fromFlag: boolean, env: NodeJS.ProcessEnv): string {
  if (provider !== 'openai' && provider !== 'anthropic') return 'not needed';
  const { key, source } = loadApiKey(provider as KeyedProvider, keyFile, fromFlag, env);
  return key === undefined ? 'none found' : `found (${source})`;
}

/**
 * A fleet robot as a run would get it: every setting of its backend, the defaults filled in,
 * each with its source; or, when its file entry leaves a setting to a flag, what it lacks.
 */
/** A robot setting on one line: a map (policies: walk → folder) as `walk=/path, kick_left=/path`. */
function settingText(value: unknown): string {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return Object.entries(value).map(([k, v]) => `${k}=${settingText(v)}`).join(' ');
  // A camera stream's address may carry a login (http://user:password@…): the password is never shown.
  return Array.isArray(value) ? value.map(settingText).join(',') : String(value).replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@\s]*:)[^@/\s]+@/i, '$1***@');
}

function robotReport(fleet: Fleet, robot: Robot): { name: string; body: string; missing?: string; settings: Record<string, { value: unknown; from: string }> } {
  let resolved: Robot = robot;
  let missing: string | undefined;
  try {
    resolved = fleet.resolve(robot.name);
  } catch (err) {
    if (!(err instanceof RobotSettingsError && err.problem === 'missing')) throw err;
    missing = err.setting;
  }
  const settings = Object.fromEntries(Object.entries(resolved.settings).map(([k, v]) => [k, { value: v, from: resolved.sources[k] ?? 'default' }]));
  return { name: robot.name, body: robot.key, ...(missing !== undefined ? { missing } : {}), settings };
}

/** Recall by meaning: its server and model, the floor and where it came from; or off. */
function embeddingsReport(section: Parameters<typeof resolveEmbeddings>[0], path: string, data: string): { value: string; from: string; settings?: Record<string, unknown> } {
  const e = resolveEmbeddings(section, path, {}, data);
  if (e === undefined) return { value: 'off: recall is by words (BM25) alone', from: 'default' };
  const value = `${e.model}${e.dims !== undefined ? `/${e.dims}` : ''} at ${e.baseUrl} · similarity floor ${e.floor} (${e.floorFrom}) · meaning weight ${e.weight} · key ${e.apiKey !== undefined ? 'from key_file' : 'none'}`;
  return { value, from: `memory.embeddings in ${path}`, settings: { baseUrl: e.baseUrl, model: e.model, dims: e.dims ?? null, floor: e.floor, floorFrom: e.floorFrom, weight: e.weight, timeoutS: e.timeoutMs / 1000 } };
}

export const configCommand: Command = {
  name: 'config',
  help,
  async run(argv: readonly string[], { io, env: given }: Invocation): Promise<number> {
    const { flags, positionals } = parseFlags('config', argv, { json: { type: 'boolean' }, config: { type: 'string' }, 'memory-dir': { type: 'string' }, ...PILOT_FLAGS });
    // The file `quackd serve --config PATH` would read: the same flag, the same choice.
    const env = withConfigFlag(given, flags.config);
    const [sub = 'check'] = positionals;
    if (sub !== 'check') {
      const hint = didYouMean(sub, ['check']);
      throw new UsageError(`config: unknown sub-command "${sub}"${hint}`, hint === '' ? "use 'check'" : undefined);
    }
    const file = await loadConfigFile(env);
    const fleet = new Fleet(file.config.robots ?? {});
    const pilot = await resolvePilotSettings(pilotFlags(flags), env);
    // The same checks a run makes before it starts (known provider, a model, a key for a cloud).
    const problem = await createProvider(pilotFlags(flags), env).then(
      () => undefined,
      (err: unknown) => {
        if (err instanceof QuackdError) return `${err.message}${err.hint !== undefined ? ` (${err.hint})` : ''}`;
        throw err;
      },
    );
    // Where each path came from: the variable that set it, or the data directory it sits in.
    const home = env['QUACKD_HOME'] ? 'QUACKD_HOME' : 'default';
    const setting = <T>(value: T, from: string): { value: T; from: string } => ({ value, from });
    const report = {
      configFile: { path: file.path, exists: file.exists, from: configSource(env) },
      paths: {
        data: setting(dataDir(env), home),
        transcripts: setting(transcriptsDir(env), home),
        recordings: setting(recordingsDir(env), home),
        memory: setting(memoryDir(flags['memory-dir'], env), flags['memory-dir'] !== undefined ? '--memory-dir' : env['QUACKD_MEMORY_DIR'] ? 'QUACKD_MEMORY_DIR' : home),
        ducks: setting(userDucksDir(env), home),
      },
      transcriptsKept: { value: retentionPolicy(file.config.transcripts), from: file.config.transcripts !== undefined ? `transcripts in ${file.path}` : 'default' },
      recordings: { value: recordingPolicy(file.config.recordings), from: file.config.recordings !== undefined ? `recordings in ${file.path}` : 'default' },
      // The live Foxglove server of quackd serve (--foxglove on its command line wins over this).
      foxglove: { ...foxgloveSummary(file.config.foxglove, env), from: file.config.foxglove !== undefined ? `foxglove in ${file.path}` : 'default' },
      memoryWaitS: { value: { open: WAIT_MS.open / 1000, write: WAIT_MS.write / 1000, remember: RUN_WAIT_MS.remember / 1000, episode: RUN_WAIT_MS.episode / 1000 }, from: 'built in' },
      memoryEmbeddings: embeddingsReport(file.config.memory, file.path, dataDir(env)),
      robots: fleet.list().map((r) => robotReport(fleet, r)),
      // The service's MQTT (quackd serve); a problem here is the service's, not a run's.
      mqtt: { ...mqttSummary(file.config.mqtt, dirname(file.path)), from: file.config.mqtt !== undefined ? `mqtt in ${file.path}` : 'default' },
      pilot: {
        provider: setting(pilot.provider, pilot.sources.provider),
        model: setting(pilot.model ?? null, pilot.sources.model),
        baseUrl: setting(pilot.baseUrl ?? null, pilot.sources.baseUrl),
        timeoutS: setting(pilot.timeoutMs / 1000, pilot.sources.timeout),
        retries: setting(pilot.retries, pilot.sources.retries),
        keyFile: setting(pilot.keyFile ?? null, pilot.sources.keyFile),
        apiKey: keyStatus(pilot.provider, pilot.keyFile, pilot.keyFileFromFlag, env),
      },
      valid: problem === undefined,
      ...(problem !== undefined ? { problem } : {}),
    };
    if (flags.json === true) {
      io.line(JSON.stringify(report));
      return problem === undefined ? EXIT.ok : EXIT.usage;
    }
    // On a terminal a long value wraps under its value column, between words.
    const say = (text: string, indent: number): void => io.line(fitLine(text, io.width(), indent));
    const row = (k: string, v: string, from?: string): void => say(`  ${k.padEnd(12)} ${v}${from !== undefined ? io.dim(`  (${from})`) : ''}`, 15);
    say(`config file  ${file.path}${io.dim(file.exists ? `  (${report.configFile.from})` : '  (absent: built-in defaults)')}`, 13);
    io.line('paths');
    const p = report.paths;
    row('data', p.data.value, p.data.from);
    row('transcripts', p.transcripts.value, p.transcripts.from);
    row('recordings', p.recordings.value, p.recordings.from);
    row('memory', p.memory.value, p.memory.from);
    row('ducks', p.ducks.value, p.ducks.from);
    const kept = report.transcriptsKept.value;
    row('runs kept', `newest ${kept.keepRuns} per robot and the last ${kept.keepDays} day${kept.keepDays === 1 ? '' : 's'}`, report.transcriptsKept.from);
    const rec = report.recordings.value;
    row('recording', rec.record ? `every run (--no-record skips one), newest ${rec.maxBytes / 1_000_000} MB kept per robot; camera ${rec.cameraFps > 0 ? `${rec.cameraFps} frame${rec.cameraFps === 1 ? '' : 's'} a second` : 'snapshots only'}` : 'off (recordings.record: false)', report.recordings.from);
    const fg = report.foxglove;
    row('foxglove', fg.value, fg.from);
    if (fg.problem !== undefined) say(`  ${io.yellow(printable(fg.problem))}`, 2);
    const w = report.memoryWaitS.value;
    row('memory wait', `open ${w.open} s · write ${w.write} s · remember ${w.remember} s · episode ${w.episode} s`, report.memoryWaitS.from);
    const me = report.memoryEmbeddings;
    row('embeddings', me.value, me.from);
    say(report.robots.length > 0 ? 'robots' : `robots       ${io.dim('none in the config file: --robot takes a body key (quackd bodies)')}`, 13);
    for (const r of report.robots) {
      const settings = Object.entries(r.settings).map(([k, v]) => `${k} ${printable(settingText(v.value))}${io.dim(` (${v.from})`)}`);
      row(printable(r.name), `${r.body}${settings.length > 0 ? `  ${settings.join(', ')}` : ''}${r.missing !== undefined ? io.yellow(`  needs ${r.missing}: give --${r.missing} to a run`) : ''}`);
    }
    const m = report.mqtt;
    say(`mqtt         ${m.value}${io.dim(`  (${m.from})`)}`, 13);
    if (m.problem !== undefined) say(`  ${io.yellow(`${printable(m.problem)}: quackd serve would go on without MQTT`)}`, 2);
    io.line('pilot');
    const pi = report.pilot;
    row('provider', pi.provider.value, pi.provider.from);
    row('model', pi.model.value ?? '-', pi.model.from);
    row('base url', pi.baseUrl.value ?? '-', pi.baseUrl.from);
    row('timeout', `${pi.timeoutS.value} s`, pi.timeoutS.from);
    row('retries', String(pi.retries.value), pi.retries.from);
    row('key file', pi.keyFile.value ?? '-', pi.keyFile.from);
    row('api key', pi.apiKey);
    if (problem !== undefined) {
      say(`${io.red(io.fail)} a run would stop here: ${problem}`, 2);
      return EXIT.usage;
    }
    io.line(`${io.green(io.ok)} config is valid`);
    return EXIT.ok;
  },
};
