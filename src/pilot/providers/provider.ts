/**
 * The provider seam: the pilot loop asks a Provider for the next tool calls; fake, OpenAI-
 * compatible and Anthropic providers sit behind it. A provider only talks; it never executes.
 * What it returns is untrusted text that the safety executor checks.
 */
import type { Observation, Picture, VerbResult } from '../../bodies/body.js';

/** A tool the pilot may call, as offered to the model. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  /** JSON Schema (draft-7 style object schema) of the arguments. */
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

/** A tool call as the model wrote it. `args` is untrusted; `error` says why it could not be read. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  /** Set when the call could not be parsed (malformed JSON arguments, …). */
  readonly error?: string;
}

/** A picture a verb returned (a camera frame), as the model is shown it. */
export type PilotImage = Picture;

export type PilotMessage =
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly text: string; readonly toolCalls: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly callId: string; readonly name: string; readonly content: string; readonly image?: PilotImage };

/** What the loop last saw, structured, for scripted pilots (real providers read `messages`). */
export interface PilotContext {
  readonly observation: Observation;
  /** The result of each tool call of the previous response, in order. */
  readonly lastResults: readonly { readonly verb: string; readonly result: VerbResult; readonly invented: boolean }[];
  readonly dryRun: boolean;
  /** The duck's name (starter or file stem), e.g. `find-and-kick`. */
  readonly duck: string;
  /** The duck's own text (role, strategy, or an ad-hoc goal). */
  readonly task: string;
}

export interface PilotRequest {
  readonly system: string;
  readonly messages: readonly PilotMessage[];
  readonly tools: readonly ToolSpec[];
  readonly context: PilotContext;
}

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

export interface PilotResponse {
  /** Prose the model wrote beside its calls (never executed). */
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
  readonly usage?: TokenUsage;
}

export interface Provider {
  /** `fake`, `openai`, `anthropic`. */
  readonly name: string;
  readonly model: string;
  /** The model reads pictures (a tool result's `image`); absent or false, it is told in words only. */
  readonly seesImages?: boolean;
  /** The widest picture this model is sent (`pilot.image_width`); absent: 512 px. */
  readonly pictureWidth?: number;
  /** One LLM call. Must reject promptly when `signal` aborts. */
  next(request: PilotRequest, signal: AbortSignal): Promise<PilotResponse>;
}

/** The pilot as a run's header names it: `fake`, `script`, or a model's provider and name (`openai gpt-4o`). */
export function pilotLabel(provider: Pick<Provider, 'name' | 'model'>): string {
  return provider.name === 'fake' || provider.name === 'script' ? provider.name : `${provider.name} ${provider.model}`;
}

/** A provider failure the run cannot recover from (unreachable, 401, …): exit code 3. */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
}
