/**
 * Logs: on a terminal one readable line a record with no JSON tail; --debug and
 * QUACKD_LOG_LEVEL=debug print the debug lines (provider calls, store opens).
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { stripColor } from '../src/cli/fit.js';
import { createLogger, logger, prettyStream, tapLogs, terminalLine, withLogs } from '../src/log.js';
import { registerSecret } from '../src/secrets.js';
import { quackd } from './helpers/quackd.js';
import { tempDir } from './helpers/tmp.js';

describe('log lines on a terminal', () => {
  it('say module, message and facts as key=value, never a JSON tail', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const log = createLogger('debug', prettyStream(out)).child({ module: 'pilot' });
    log.debug({ provider: 'openai', model: 'qwen 2.5', ms: 12, nested: { a: 1 } }, 'provider call');
    log.error({ err: new Error('boom\n    at somewhere') }, 'run failed');
    await new Promise((r) => setImmediate(r));
    const lines = stripColor(text).trimEnd().split('\n');
    assert.equal(lines.length, 2, text);
    assert.match(lines[0]!, /DEBUG.*: pilot: provider call provider=openai model="qwen 2\.5" ms=12$/);
    assert.match(lines[1]!, /ERROR.*: pilot: run failed err="boom"$/);
    for (const l of lines) assert.doesNotMatch(l, /[{}]/);
  });

  it('terminalLine leaves objects to the JSON logs', () => {
    assert.equal(terminalLine({ level: 20, time: 1, pid: 2, module: 'memory', msg: 'opening', dir: '/tmp/m', readOnly: true, detail: { x: 1 } }), 'memory: opening dir=/tmp/m readOnly=true');
  });
});

describe('debug logs', () => {
  const levels = (stderr: string): { level: number; module: string; msg: string }[] =>
    stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; module: string; msg: string });

  it('--debug prints the provider calls and the store open', async () => {
    const r = await quackd(['run', 'hello-world', '--debug'], { env: { QUACKD_HOME: tempDir(), QUACKD_LOG_LEVEL: 'warn' } });
    assert.equal(r.code, 0, r.stderr);
    const debug = levels(r.stderr).filter((l) => l.level === 20);
    assert.ok(debug.some((l) => l.module === 'pilot' && l.msg === 'provider call'), r.stderr);
    assert.equal(debug.filter((l) => l.module === 'memory').length, 1, r.stderr);
  });

  it('QUACKD_LOG_LEVEL=debug does the same; the default prints none', async () => {
    const on = await quackd(['run', 'hello-world'], { env: { QUACKD_HOME: tempDir(), QUACKD_LOG_LEVEL: 'debug' } });
    assert.equal(on.code, 0, on.stderr);
    assert.ok(levels(on.stderr).some((l) => l.level === 20 && l.module === 'pilot'), on.stderr);
    // A run that crashed would print no JSON log line either: the default is a clean run, silent on stderr.
    const off = await quackd(['run', 'hello-world'], { env: { QUACKD_HOME: tempDir() } });
    assert.equal(off.code, 0, off.stderr);
    assert.match(off.stdout, /^OK success — I quacked hello\./m);
    assert.equal(off.stderr, '');
  });
});

describe('tapLogs (what MQTT publishes on bridge/logging)', () => {
  it("hands over each line of the invocation's loggers, redacted, until stopped; a tap that logs does not feed itself", async () => {
    registerSecret('tap-secret-24680');
    const out = new PassThrough();
    const other = createLogger('info', new PassThrough());
    const seen: string[] = [];
    await withLogs(createLogger('info', out), async () => {
      const stop = tapLogs((line) => {
        seen.push(line);
        logger('tap').info('logged from inside the tap');
      });
      logger('bridge').info({ key: 'tap-secret-24680' }, 'link back');
      await withLogs(other, async () => logger('mcp').info('another invocation'));
      stop();
      logger('bridge').info('after the tap stopped');
    });
    assert.equal(seen.length, 1, seen.join(''));
    const record = JSON.parse(seen[0] ?? '{}') as Record<string, unknown>;
    assert.deepEqual([record['module'], record['msg'], record['key']], ['bridge', 'link back', '[redacted]']);
  });
});
