/**
 * README's MCP section holds: the Claude Desktop snippet is JSON a client can read, each server in
 * it runs serve-mcp, and the refusal it quotes for an exposed server without a token is the line
 * serve-mcp prints.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { quackd } from '../helpers/quackd.js';
import { tempDir } from '../helpers/tmp.js';

const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');

describe('README: MCP', () => {
  it('the Claude Desktop snippet is JSON whose servers each run serve-mcp', () => {
    const at = README.indexOf('(`claude_desktop_config.json`)');
    assert.ok(at >= 0);
    const block = /```json\n([\s\S]*?)```/.exec(README.slice(at))?.[1] ?? '';
    const config = JSON.parse(block) as { mcpServers: Record<string, { command: string; args: string[] }> };
    const servers = Object.values(config.mcpServers);
    assert.ok(servers.length >= 2);
    for (const s of servers) assert.deepEqual(s.args.slice(-2), ['quackd', 'serve-mcp'].slice(s.command === 'quackd' ? 1 : 0));
  });

  it('quotes the refusal an exposed server without a token prints', async () => {
    const quoted = /`(quackd: serve-mcp: --http 0\.0\.0\.0 [^`]*?)\(…\)`/.exec(README)?.[1];
    assert.ok(quoted !== undefined, 'README quotes the refusal');
    const r = await quackd(['serve-mcp', '--http', '0.0.0.0:3825'], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(r.code, 2);
    // README wraps its lines: compare words, not line breaks.
    assert.ok(r.stderr.startsWith(quoted.replace(/\s+/g, ' ')), r.stderr);
  });
});
