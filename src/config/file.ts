/**
 * The config file, `<QUACKD_HOME or ~/.quackd>/config.yaml`, or the machine's (configPath). One
 * zod schema is both the type and the documentation; a bad file is reported all at once, each
 * problem with its line, and exits 2. A missing file is the common case and means built-in
 * defaults. Sections: `pilot:` (the LLM), `robots:` (the fleet), `service:` (quackd serve),
 * `mqtt:` (the service's MQTT) `transcripts:` (how many runs are kept), `recordings:` (whether runs are recorded, how much is kept), `foxglove:` (the live server) and `memory:` (recall's embedding server, src/memory/config.ts).
 */
import { open } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { InputError } from '../errors.js';
import { printable } from '../text/printable.js';
import { RobotsSectionSchema } from '../runtime/fleet.js';
import { MqttSectionSchema } from '../mqtt/config.js';
import { ServiceSectionSchema } from '../service/settings.js';
import { TranscriptsSectionSchema } from '../transcript/retention.js';
import { RecordingsSectionSchema } from '../recording/retention.js';
import { FoxgloveSectionSchema } from '../foxglove/config.js';
import { MemorySectionSchema } from '../memory/config.js';
import { dataDir } from './paths.js';
import { nestingMessage } from '../text/nesting.js';
import { tooLarge } from '../text/too-large.js';
import { closest, didYouMean } from '../text/suggest.js';
import { keysAt } from './schema-keys.js';
import { notANumber } from './number-setting.js';
import { valueAt } from './value-at.js';

/** A config is a page or two: a megabyte is far more than one needs, and bounds what start-up reads. */
export const MAX_CONFIG_BYTES = 1 << 20;

export const PilotSectionSchema = z
  .object({
    /** `fake`, `openai` (any OpenAI-compatible server) or `anthropic`. */
    provider: z.string().min(1).optional(),
    /** The server's model name, e.g. `qwen2.5-coder:7b` (Ollama). */
    model: z.string().min(1).optional(),
    /** e.g. `http://localhost:11434/v1`; the provider's cloud API when absent. */
    base_url: z.url({ protocol: /^https?$/, error: 'expected an http:// or https:// URL' }).optional(),
    /** Deadline for one LLM call, in seconds. */
    timeout_s: z.number().positive().max(3600).optional(),
    /** Extra attempts on 429, 5xx and dropped connections. */
    retries: z.int().min(0).max(10).optional(),
    /** A file holding the API key, mode 0600; `~/` and paths relative to this file work. */
    key_file: z.string().min(1).optional(),
    /** The model reads pictures (a camera frame from a verb): anthropic yes, openai-compatible no, unless said here. */
    images: z.boolean().optional(),
    /** The widest picture (a `snapshot`) the model is sent, in pixels; 512 when absent. Never enlarged. */
    image_width: z.int().min(64).max(4096).optional(),
  })
  .strict();

// Strict at the top too: a misspelt section (`pilots:`) must not be silently ignored.
// `robots:` is the fleet (src/runtime/fleet.ts): name → { body: adapter:backend, ...settings }.
// `service:` is what `quackd serve` takes (src/service/settings.ts); `mqtt:` its MQTT front door (src/mqtt/config.ts; `false` turns it off).
export const ConfigFileSchema = z.object({ pilot: PilotSectionSchema.optional(), robots: RobotsSectionSchema.optional(), service: ServiceSectionSchema.optional(), mqtt: MqttSectionSchema.optional(), transcripts: TranscriptsSectionSchema.optional(), recordings: RecordingsSectionSchema.optional(), foxglove: FoxgloveSectionSchema.optional(), memory: MemorySectionSchema.optional() }).strict();

export type PilotSection = z.infer<typeof PilotSectionSchema>;
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

export interface LoadedConfig {
  /** Absolute path, whether or not the file exists. */
  readonly path: string;
  readonly exists: boolean;
  readonly config: ConfigFile;
}

/** The machine's config, shared by the boot-time service and everyone's CLI. */
export const SYSTEM_CONFIG = '/etc/quackd/config.yaml';

/**
 * Which config file: QUACKD_CONFIG (what `quackd serve --config PATH` sets), else
 * /etc/quackd/config.yaml when it exists, else `<data dir>/config.yaml`. A QUACKD_HOME of one's
 * own is a home apart (a test, a second robot on one machine): its config.yaml only.
 */
export function configPath(env: NodeJS.ProcessEnv, system = SYSTEM_CONFIG): string {
  const named = env['QUACKD_CONFIG'];
  if (named !== undefined && named !== '') return resolve(named);
  const home = env['QUACKD_HOME'];
  if ((home === undefined || home === '') && existsSync(system)) return system;
  return join(dataDir(env), 'config.yaml');
}

/** `--config PATH` as the environment every part of one command reads (QUACKD_CONFIG). */
export function withConfigFlag(env: NodeJS.ProcessEnv, flag: string | undefined): NodeJS.ProcessEnv {
  return flag === undefined || flag === '' ? env : { ...env, QUACKD_CONFIG: resolve(flag) };
}

/** Why configPath() chose its file, for `quackd config check`. */
export function configSource(env: NodeJS.ProcessEnv, system = SYSTEM_CONFIG): string {
  if (env['QUACKD_CONFIG'] !== undefined && env['QUACKD_CONFIG'] !== '') return '--config or QUACKD_CONFIG';
  if (configPath(env, system) === system) return 'the machine\'s config';
  return env['QUACKD_HOME'] ? 'QUACKD_HOME' : 'default';
}

/** A key of `section` that the schema does not take and that is a likely typo of `missing`. */
function typoOf(missing: string, section: unknown, known: readonly string[]): string | undefined {
  if (typeof section !== 'object' || section === null || Array.isArray(section)) return undefined;
  return Object.keys(section).find((k) => !known.includes(k) && closest(k, [missing]) !== undefined);
}

export async function loadConfigFile(env: NodeJS.ProcessEnv): Promise<LoadedConfig> {
  const path = configPath(env);
  let text: string;
  try {
    // The size first, on the file opened: a huge file is refused unread.
    const file = await open(path, 'r');
    try {
      const { size } = await file.stat();
      if (size > MAX_CONFIG_BYTES) throw tooLarge(path, size, MAX_CONFIG_BYTES, 'a config file');
      text = await file.readFile('utf8');
    } finally {
      await file.close();
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      // No file where one is looked for by default is an empty fleet; one named is a mistake (a typo'd --config would serve no robot).
      if (env['QUACKD_CONFIG'] !== undefined && env['QUACKD_CONFIG'] !== '') throw new InputError(`${path}: no such file (named by --config or QUACKD_CONFIG)`, 'check the path, or leave --config out for the default config file');
      return { path, exists: false, config: {} };
    }
    throw new InputError(`${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  // Imported here so that runs without a config file never load the YAML parser.
  const [{ LineCounter, parseDocument, isMap, isScalar }, { duplicateKey, twiceMessage, yamlTooDeep, yamlValues }] = await Promise.all([import('yaml'), import('./yaml-values.js')]);
  const deep = yamlTooDeep(text);
  if (deep !== undefined) throw new InputError(`${path}:${text.slice(0, deep).split('\n').length}: ${nestingMessage()}`);
  const lines = new LineCounter();
  // logLevel error: yaml's warnings (a list as a key) would be a Node warning on stderr beside the one line; the schema says what is wrong.
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, logLevel: 'error' });
  const syntax = doc.errors[0];
  if (syntax !== undefined) {
    const line = lines.linePos(syntax.pos[0]).line;
    // A key written twice is named (yaml says only "Map keys must be unique"); when those are all that is wrong, all at once as schema problems are.
    const twice = doc.errors.map((e) => (e.code === 'DUPLICATE_KEY' ? duplicateKey(doc, e.pos[0]) : undefined));
    const said = twice.map((t) => (t !== undefined ? `${path}:${lines.linePos(t.offset).line}: ${twiceMessage(t, (offset) => lines.linePos(offset).line)}` : undefined));
    if (said.every((s) => s !== undefined)) throw new InputError(said.join('; '));
    if (said[0] !== undefined) throw new InputError(said[0]);
    throw new InputError(`${path}:${line}: ${printable(syntax.message.split('\n')[0] ?? 'invalid YAML')}`);
  }
  const values = yamlValues(doc);
  if (!values.ok) {
    const line = values.offset !== undefined ? `:${lines.linePos(values.offset).line}` : '';
    throw new InputError(`${path}${line}: ${values.path.join('.') || '(top level)'}: ${values.message}`);
  }
  const parsed = ConfigFileSchema.safeParse(values.value ?? {});
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const at = issue.path.map(String);
      const missing = issue.code === 'invalid_type' && at.length > 0 && valueAt(values.value, at) === undefined ? at.at(-1) : undefined;
      // A key left out beside one that is a typo of it (`bodi:` for `body:`) is that typo: said where it is written.
      const typo = missing !== undefined ? typoOf(missing, valueAt(values.value, at.slice(0, -1)), keysAt(ConfigFileSchema, at.slice(0, -1))) : undefined;
      const keys = issue.code === 'unrecognized_keys' ? issue.keys : typo !== undefined ? [typo] : [];
      const owner = typo !== undefined ? at.slice(0, -1) : at;
      // An unknown key is reported where the key is written, not where its value starts.
      const parent = owner.length === 0 ? doc.contents : doc.getIn(owner, true);
      const keyOf = (map: unknown, key: string | undefined) => (isMap(map) ? map.items.find((p) => isScalar(p.key) && p.key.value === key)?.key : undefined);
      // A key left out has no line of its own: its section's name (`sim:` for robots.sim.body).
      const section = missing !== undefined && typo === undefined ? at.slice(0, -1) : undefined;
      const keyNode = keys.length > 0 ? keyOf(parent, keys[0]) : section !== undefined ? keyOf(section.length > 1 ? doc.getIn(section.slice(0, -1), true) : doc.contents, section.at(-1)) : undefined;
      let node = (keyNode ?? doc.getIn(owner, true)) as { range?: [number, number, number] } | undefined;
      for (let i = owner.length - 1; node?.range === undefined && i >= 0; i--) node = doc.getIn(owner.slice(0, i), true) as typeof node;
      const line = node?.range !== undefined ? lines.linePos(node.range[0]).line : undefined;
      const field = owner.join('.') || '(top level)';
      // A key is the file's text: shown escaped, so a key cannot drive the terminal.
      const what =
        keys.length > 0
          ? `unknown key${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${printable(k)}"`).join(', ')}${missing !== undefined ? ` (did you mean "${missing}"?)` : didYouMean(keys[0] ?? '', keysAt(ConfigFileSchema, owner))}`
          : missing !== undefined
            ? 'missing'
            : (notANumber(issue, valueAt(values.value, at)) ?? issue.message);
      return `${path}${line !== undefined ? `:${line}` : ''}: ${field}: ${what}`;
    });
    // Every problem at once, each in the file:line: form a .duck error uses.
    throw new InputError(problems.join('; '));
  }
  return { path, exists: true, config: parsed.data };
}
