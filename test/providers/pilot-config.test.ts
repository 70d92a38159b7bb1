import { exitCodeOf } from '../../src/cli/errors.js';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InputError, UsageError } from '../../src/cli/errors.js';
import { loadApiKey } from '../../src/config/api-key.js';
import { loadConfigFile } from '../../src/config/file.js';
import { resolvePilotSettings } from '../../src/config/pilot.js';
import { createProvider } from '../../src/pilot/providers/index.js';
import { redact } from '../../src/secrets.js';
import { aliasBomb } from '../helpers/yaml.js';

describe('pilot settings: flags > environment > config file > defaults', () => {
  let home: string;
  before(() => {
    home = mkdtempSync(join(tmpdir(), 'quackd-pilot-'));
  });
  after(() => rmSync(home, { recursive: true, force: true }));
  const write = (yaml: string): void => writeFileSync(join(home, 'config.yaml'), yaml);

  it('uses built-in defaults without a config file', async () => {
    const s = await resolvePilotSettings({}, { QUACKD_HOME: join(home, 'nowhere') });
    assert.deepEqual([s.provider, s.model, s.baseUrl, s.timeoutMs, s.retries, s.keyFile], ['fake', undefined, undefined, 60_000, 2, undefined]);
  });

  it('layers the sources in order and remembers where each came from', async () => {
    write('pilot:\n  provider: anthropic\n  model: from-file\n  base_url: http://gpu-box.lan:11434/v1/\n  timeout_s: 90\n  retries: 4\n  key_file: keys/llm.key\n');
    const env = { QUACKD_HOME: home, QUACKD_MODEL: 'from-env', QUACKD_TIMEOUT_S: '45' };
    const fileOnly = await resolvePilotSettings({}, { QUACKD_HOME: home });
    assert.equal(fileOnly.provider, 'anthropic');
    assert.equal(fileOnly.baseUrl, 'http://gpu-box.lan:11434/v1');
    assert.equal(fileOnly.keyFile, join(home, 'keys/llm.key'));
    assert.equal(fileOnly.sources.provider, `pilot.provider in ${join(home, 'config.yaml')}`);
    const s = await resolvePilotSettings({ provider: 'openai', retries: 0 }, env);
    assert.deepEqual([s.provider, s.model, s.timeoutMs, s.retries], ['openai', 'from-env', 45_000, 0]);
    const file = join(home, 'config.yaml');
    assert.deepEqual(s.sources, { provider: '--provider', model: 'QUACKD_MODEL', baseUrl: `pilot.base_url in ${file}`, timeout: 'QUACKD_TIMEOUT_S', retries: '--retries', keyFile: `pilot.key_file in ${file}` });
    assert.deepEqual([fileOnly.sources.timeout, fileOnly.sources.retries], [`pilot.timeout_s in ${file}`, `pilot.retries in ${file}`]);
  });

  it('reports every problem in the file at once, with lines, as an input error (exit 2)', async () => {
    write('pilot:\n  provider: openai\n  timeout_s: soon\n  base_url: ftp://x\n  modle: qwen\n');
    await assert.rejects(loadConfigFile({ QUACKD_HOME: home }), (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.equal(exitCodeOf(err), 2);
      assert.match(err.message, /config\.yaml:3: pilot\.timeout_s: /);
      assert.match(err.message, /config\.yaml:4: pilot\.base_url: expected an http/);
      assert.match(err.message, /config\.yaml:5: pilot: unknown key "modle"/);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
    write('pilot: [unclosed\n');
    await assert.rejects(loadConfigFile({ QUACKD_HOME: home }), /config\.yaml:\d+: /);
  });

  it('an alias bomb or an escape in a key is one printable line, exit 2', async () => {
    const rejects = async (yaml: string, pattern: RegExp): Promise<void> => {
      write(yaml);
      await assert.rejects(loadConfigFile({ QUACKD_HOME: home }), (err: unknown) => {
        assert.ok(err instanceof InputError);
        assert.equal(exitCodeOf(err), 2);
        assert.match(err.message, pattern);
        assert.doesNotMatch(err.message, /[\p{Cc}\p{Cf}]/u);
        return true;
      });
    };
    await rejects(aliasBomb(), /config\.yaml:4: l3(\.\d+)*: YAML aliases expand too far/);
    await rejects('pilot:\n  "x\\e[31m\\a\\u202e": 1\n"\\u009b2J": 2\n', /config\.yaml:2: pilot: unknown key "x\\x1b\[31m\\x07\\u\{202e\}".*config\.yaml:3: \(top level\): unknown key "\\x9b2J"/);
  });

  it('refuses bad values from flags and the environment with the name to fix', async () => {
    write('');
    await assert.rejects(resolvePilotSettings({ baseUrl: 'localhost:11434' }, { QUACKD_HOME: home }), (err: unknown) => err instanceof UsageError && /^--base-url: "localhost:11434" is not an http/.test(err.message));
    await assert.rejects(resolvePilotSettings({}, { QUACKD_HOME: home, QUACKD_RETRIES: 'many' }), /^UsageError: QUACKD_RETRIES: "many" is not a valid whole number/);
  });
});

describe('API keys', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'quackd-keys-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const keyFile = (name: string, content: string, mode: number): string => {
    const path = join(dir, name);
    writeFileSync(path, content);
    chmodSync(path, mode);
    return path;
  };

  it('reads a 0600 key file and registers the key for redaction', () => {
    const path = keyFile('ok.key', '\n  sk-file-Vb8Nm3Kj6Hg2Fd9Sa5Lp  \n', 0o600);
    const k = loadApiKey('openai', path, false, {});
    assert.equal(k.key, 'sk-file-Vb8Nm3Kj6Hg2Fd9Sa5Lp');
    assert.equal(redact('model said sk-file-Vb8Nm3Kj6Hg2Fd9Sa5Lp'), 'model said [redacted]');
  });

  it('refuses a key file others can read, in one line, without its content', () => {
    const path = keyFile('open.key', 'sk-open-Qw3Er4Ty5Ui6Op7As8Df', 0o644);
    assert.throws(() => loadApiKey('openai', path, true, {}), (err: unknown) => {
      assert.ok(err instanceof InputError);
      assert.equal(err.message, `key file ${path} is open to other users (mode 0644); it must be 0600`);
      assert.equal(err.hint, `chmod 600 ${path}`);
      return true;
    });
  });

  it('prefers --key-file, then the environment, then the config file', () => {
    const path = keyFile('pref.key', 'sk-file-Zx1Cv2Bn3Mm4Lk5Jh6Gf', 0o600);
    const env = { OPENAI_API_KEY: 'sk-env-Po9Iu8Yt7Re6Wq5Aa4Ss' };
    assert.equal(loadApiKey('openai', path, true, env).source, `key file ${path}`);
    assert.equal(loadApiKey('openai', path, false, env).source, 'OPENAI_API_KEY');
    assert.equal(loadApiKey('anthropic', path, false, env).source, `key file ${path}`);
    // Registered even though this run does not use it.
    assert.equal(redact('sk-env-Po9Iu8Yt7Re6Wq5Aa4Ss'), '[redacted]');
  });
});

describe('createProvider', () => {
  const env = { QUACKD_HOME: join(tmpdir(), 'quackd-no-such-home') };

  it('builds the fake, openai and anthropic providers, loading each SDK only when asked', async () => {
    assert.equal((await createProvider({}, env)).name, 'fake');
    const o = await createProvider({ provider: 'openai', model: 'qwen2.5-coder:7b', baseUrl: 'http://127.0.0.1:11434/v1' }, env);
    assert.deepEqual([o.name, o.model], ['openai', 'qwen2.5-coder:7b']);
    const a = await createProvider({ provider: 'anthropic', model: 'claude-haiku-4-5' }, { ...env, ANTHROPIC_API_KEY: 'sk-ant-env-Lk9Jh8Gf7Ds6Aa5' });
    assert.deepEqual([a.name, a.model], ['anthropic', 'claude-haiku-4-5']);
  });

  it('says what is missing, as usage errors', async () => {
    await assert.rejects(createProvider({ provider: 'gemini' }, env), /^UsageError: --provider: unknown provider "gemini"/);
    await assert.rejects(createProvider({ provider: 'openai' }, env), /^UsageError: --model is required with --provider openai/);
    await assert.rejects(createProvider({ provider: 'openai', model: 'gpt-4.1-mini' }, env), /^UsageError: openai: no API key for https:\/\/api\.openai\.com\/v1/);
  });
});
