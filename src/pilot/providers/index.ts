/**
 * Picks the provider a run asked for and imports only that one, so a fake run never loads an
 * LLM SDK.
 */
import { UsageError } from '../../cli/errors.js';
import type { Provider } from './provider.js';

export interface ProviderConfig {
  /** `fake`, `openai`, `anthropic`. */
  readonly provider: string;
  readonly model?: string;
  readonly baseUrl?: string;
  /** Per-call timeout. */
  readonly timeoutMs?: number;
}

export const PROVIDERS = ['fake'] as const;

export async function createProvider(config: ProviderConfig): Promise<Provider> {
  switch (config.provider) {
    case 'fake':
      return (await import('./fake.js')).createFakeProvider();
    default:
      throw new UsageError(`--provider: unknown provider "${config.provider}"`, `one of: ${PROVIDERS.join(', ')}`);
  }
}
