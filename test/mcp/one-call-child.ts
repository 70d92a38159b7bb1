/**
 * The MCP Inspector's CLI way of using a server, in a process of its own: `node --import tsx
 * one-call-child.ts URL TOOL ARGS_JSON` connects over Streamable HTTP with the SDK's client, makes
 * one tool call, prints its answer as JSON, and exits: no DELETE ends its MCP session.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, tool, args] = process.argv.slice(2);
if (url === undefined || tool === undefined) throw new Error('usage: one-call-child.ts URL TOOL [ARGS_JSON]');
const client = new Client({ name: 'inspector-cli', version: '0.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(url)));
const result = await client.callTool({ name: tool, arguments: JSON.parse(args ?? '{}') as Record<string, unknown> });
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
