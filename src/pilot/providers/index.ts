/**
 * Picks the provider a run asked for and imports only that one, so a fake run never loads an
 * LLM SDK. Settings come from flags, then the environment, then the config file's `pilot:`
 * section, then defaults (src/config/pilot.ts); API keys only from the environment or a 0600
 * key file (src/config/api-key.ts).
 */
import { UsageError } from '../../errors.js';
import { loadApiKey, KEY_ENV, type KeyedProvider } from '../../config/api-key.js';
import type { LoadedConfig } from '../../config/file.js';
import { resolvePilotSettings, type PilotFlags, type PilotSettings } from '../../config/pilot.js';
import type { Provider } from './provider.js';
import type { RemoteOptions } from './remote.js';

/**
 * What the command line said. Leave a field undefined when its flag was not given, so the
 * environment and the config file can still supply it.
 */
export type ProviderConfig = PilotFlags;

export const PROVIDERS = ['fake', 'script', 'openai', 'anthropic'] as const;

/** The cloud each provider talks to when no base URL is given. */
export const DEFAULT_BASE_URL: Readonly<Record<KeyedProvider, string>> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
};

const MODEL_EXAMPLE: Readonly<Record<KeyedProvider, string>> = {
  openai: 'e.g. --model qwen2.5-coder:7b for Ollama, or set pilot.model in config.yaml',
  anthropic: 'e.g. --model claude-haiku-4-5, or set pilot.model in config.yaml',
};

/** Local servers ignore the key, but the SDKs insist on one. */
const NO_KEY = 'no-key';

function remoteOptions(provider: KeyedProvider, s: PilotSettings, env: NodeJS.ProcessEnv): RemoteOptions {
  if (s.model === undefined) {
    // Said in the words of where the provider was chosen: a service's user gave no flag.
    if (s.sources.provider !== '--provider') throw new UsageError(`${s.sources.provider} is ${provider}, which needs a model: pilot.model in the config, QUACKD_MODEL or --model`, MODEL_EXAMPLE[provider]);
    throw new UsageError(`--model is required with --provider ${provider}`, MODEL_EXAMPLE[provider]);
  }
  const baseUrl = s.baseUrl ?? DEFAULT_BASE_URL[provider];
  const { key } = loadApiKey(provider, s.keyFile, s.keyFileFromFlag, env);
  if (key === undefined && baseUrl === DEFAULT_BASE_URL[provider]) {
    throw new UsageError(`${provider}: no API key for ${baseUrl}`, `set ${KEY_ENV[provider]}, or pilot.key_file / --key-file naming a 0600 file`);
  }
  return {
    model: s.model,
    baseUrl,
    apiKey: key ?? NO_KEY,
    keyHint: `${KEY_ENV[provider]} or the key file`,
    policy: { retries: s.retries, timeoutMs: s.timeoutMs },
    ...(s.images !== undefined ? { images: s.images } : {}),
    ...(s.imageWidth !== undefined ? { imageWidth: s.imageWidth } : {}),
  };
}

/** `file`: the config read once at a service's start (resolvePilotSettings). */
export async function createProvider(config: ProviderConfig, env: NodeJS.ProcessEnv, file?: LoadedConfig): Promise<Provider> {
  const settings = await resolvePilotSettings(config, env, file);
  switch (settings.provider) {
    case 'fake':
      return (await import('./fake.js')).createFakeProvider();
    case 'script':
      return (await import('./script.js')).createScriptProvider();
    case 'openai':
      return (await import('./openai.js')).createOpenAiProvider(remoteOptions('openai', settings, env));
    case 'anthropic':
      return (await import('./anthropic.js')).createAnthropicProvider(remoteOptions('anthropic', settings, env));
    default:
      throw new UsageError(`${settings.sources.provider}: unknown provider "${settings.provider}"`, `one of: ${PROVIDERS.join(', ')}`);
  }
}
