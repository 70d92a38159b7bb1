/**
 * What the two network providers share around their wire formats: the options they are built
 * with, the SDK client settings, one call through retry.ts, the choice between native and text
 * tool calls, and a logger that sends the SDKs' lines through quackd's redacting log instead of
 * the console.
 */
import { logger } from '../../log.js';
import { uniqueIds } from './history.js';
import { callsFromContent, newCallId } from './json-in-content.js';
import type { PilotResponse, TokenUsage, ToolCall } from './provider.js';
import { DEFAULT_RETRY, callWithRetries, type RetryPolicy } from './retry.js';
import { describeSdkError, type SdkErrors } from './sdk-errors.js';

export interface RemoteOptions {
  readonly model: string;
  /** Without a trailing slash. */
  readonly baseUrl: string;
  /** A placeholder for servers that need none (Ollama, llama.cpp); never logged. */
  readonly apiKey: string;
  /** Where the key would come from, for a 401's message. */
  readonly keyHint: string;
  /** Retries and deadline; the backoff constants default to DEFAULT_RETRY. */
  readonly policy: Pick<RetryPolicy, 'retries' | 'timeoutMs'> & Partial<RetryPolicy>;
  /** Output cap per call (Anthropic requires one); a tool call needs few tokens. */
  readonly maxTokens?: number;
  /** The model reads pictures (config `pilot.images`). */
  readonly images?: boolean;
  /** The widest picture the model is sent (config `pilot.image_width`). */
  readonly imageWidth?: number;
}

export const DEFAULT_MAX_TOKENS = 1024;

type LogFn = (message: string, ...rest: unknown[]) => void;
type SdkLogger = { error: LogFn; warn: LogFn; info: LogFn; debug: LogFn };

export interface SdkClientOptions {
  readonly apiKey: string;
  readonly baseURL: string;
  readonly maxRetries: number;
  readonly timeout: number;
  readonly logger: SdkLogger;
}

/** The client options both SDKs share. */
export function clientOptions(options: RemoteOptions, label: string): SdkClientOptions {
  return {
    apiKey: options.apiKey,
    baseURL: options.baseUrl,
    // One retry mechanism (retry.ts) and one deadline; the SDK's own timeout is only a backstop.
    maxRetries: 0,
    timeout: options.policy.timeoutMs + 1000,
    logger: sdkLogger(label),
  };
}

/** One API call through retry.ts, with the SDK's errors read into retry decisions and messages. */
export function send(label: string, options: RemoteOptions, sdk: SdkErrors, signal: AbortSignal, call: (signal: AbortSignal) => Promise<unknown>): Promise<unknown> {
  const ctx = { label, baseUrl: options.baseUrl, keyHint: options.keyHint };
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.policy };
  return callWithRetries(call, { policy, signal, label, describe: (err) => describeSdkError(err, sdk, ctx) });
}

/**
 * Native tool calls win; without any, the content is searched for calls written as text.
 * Ids are made unique across the run (`seen`), so every result maps back to one call.
 */
export function assemble(text: string, native: readonly ToolCall[], usage: TokenUsage | undefined, seen: Set<string>): PilotResponse {
  const fromText = native.length > 0 ? { text, toolCalls: [...native] } : callsFromContent(text);
  return {
    text: fromText.text,
    toolCalls: uniqueIds(fromText.toolCalls, seen, newCallId),
    ...(usage !== undefined ? { usage } : {}),
  };
}

/** Token counts only when the server reported both as numbers (some local servers omit usage). */
export function usageOf(input: unknown, output: unknown): TokenUsage | undefined {
  return typeof input === 'number' && typeof output === 'number' ? { inputTokens: input, outputTokens: output } : undefined;
}

/** The SDKs' `logger` option: their warnings (deprecated model, …) land in the redacting pino log. */
function sdkLogger(label: string): SdkLogger {
  const log = logger(`pilot:${label}`);
  return {
    error: (m) => log.error(m),
    warn: (m) => log.warn(m),
    info: (m) => log.info(m),
    debug: (m) => log.debug(m),
  };
}
