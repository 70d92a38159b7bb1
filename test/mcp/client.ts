/**
 * The MCP SDK's own client against quackd's server: over stdio it spawns the built CLI
 * (`node dist/quackd.cjs serve-mcp …`) as a desktop client does; the helpers read what a tool
 * answered and a run's transcript. A test closes every server it starts (close() is idempotent).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type CallToolResult, type ClientCapabilities, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { TranscriptLine } from '../../src/transcript/events.js';
import { MAIN, assertFreshBuild, childEnv } from '../helpers/cli.js';

export interface Served {
  readonly client: Client;
  /** The server process's pid. */
  readonly pid: number | null;
  /** What the server wrote on stderr so far. */
  stderr(): string;
  /** Errors the client's transport met (a line on stdout that is not MCP would be one). */
  readonly transportErrors: Error[];
  close(): Promise<void>;
}

export interface ClientOptions {
  /** The person at the client answers each confirmation gate so (elicitation declared); none: the client cannot ask. */
  readonly elicit?: (message: string) => ElicitResult | Promise<ElicitResult>;
}

/** A client with the given capabilities: elicitation only when the test answers gates. */
export function newClient(options: ClientOptions = {}): Client {
  const capabilities: ClientCapabilities = options.elicit !== undefined ? { elicitation: { form: {} } } : {};
  const client = new Client({ name: 'quackd-test', version: '0.0.1' }, { capabilities });
  const elicit = options.elicit;
  if (elicit !== undefined) client.setRequestHandler(ElicitRequestSchema, (request) => elicit(request.params.message));
  return client;
}

/** `quackd serve-mcp ARGS` spawned from dist with `env` (QUACKD_HOME at least), connected. */
export async function serveMcpStdio(args: readonly string[], env: NodeJS.ProcessEnv, options: ClientOptions = {}): Promise<Served> {
  assertFreshBuild();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MAIN, 'serve-mcp', ...args],
    env: childEnv({ NO_COLOR: '1', QUACKD_LOG_JSON: '1', ...env }) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
  const client = newClient(options);
  const transportErrors: Error[] = [];
  client.onerror = (err) => transportErrors.push(err);
  await client.connect(transport);
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await client.close();
  };
  return { client, pid: transport.pid, stderr: () => stderr, transportErrors, close };
}

/** The text a tool answered. */
export function text(result: unknown): string {
  const content = (result as CallToolResult).content;
  return content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** The text of a resource read (its first contents). */
export function resourceText(result: { contents: readonly ({ text: string } | { blob: string })[] }): string {
  const first = result.contents[0];
  return first !== undefined && 'text' in first ? first.text : '';
}

export function isError(result: unknown): boolean {
  return (result as CallToolResult).isError === true;
}

/** A run's transcript lines, from its id. */
export function transcript(home: string, runId: string): TranscriptLine[] {
  return readFileSync(join(home, 'transcripts', `${runId}.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as TranscriptLine);
}

/** The transcript id a tool answer names (`transcript 20261201-174423-mcp`). */
export function runIdIn(answer: string): string {
  const id = /transcript (\d{8}-\d{6}-[\w.-]+)/.exec(answer)?.[1];
  if (id === undefined) throw new Error(`no transcript id in: ${answer}`);
  return id;
}
