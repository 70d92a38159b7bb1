/**
 * The written invariants, enforced on the source: only the safety layer sends intents to a body,
 * only the control loop's safety stage sends joint targets to a plant, only the runtime's body
 * pool opens a body (every front door leases from it), and data flows one way (the event bus a
 * body imports reaches neither the service nor the pilot; memory knows no verbs or pilot).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

function sources(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : []));
}

/** Files (relative to src/) whose code, comments aside, matches `pattern`. */
function filesMatching(pattern: RegExp): string[] {
  return sources()
    .filter((f) => pattern.test(readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')))
    .map((f) => relative(SRC, f))
    .sort();
}

const withoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');

/** The files (relative to src/) that `file` imports, type-only, re-exports and dynamic imports included. */
function importsOf(file: string): string[] {
  const text = withoutComments(readFileSync(join(SRC, file), 'utf8'));
  return [...text.matchAll(/\b(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)\.js'/g)].map((m) => relative(SRC, resolve(dirname(join(SRC, file)), `${m[1] ?? ''}.ts`)));
}

/** Every file `file` reaches through imports, each with the chain that reaches it (for the failure message). */
function reachedFrom(file: string): Map<string, string> {
  const chains = new Map<string, string>([[file, file]]);
  const queue = [file];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const dep of importsOf(next)) {
      if (chains.has(dep)) continue;
      chains.set(dep, `${chains.get(next) ?? next} → ${dep}`);
      queue.push(dep);
    }
  }
  return chains;
}

describe('invariants', () => {
  it('Body.perform is called only from src/safety/', () => {
    const callers = filesMatching(/\.perform\(/);
    // The executor's own call must be seen, or an empty list below would prove nothing.
    assert.ok(callers.includes('safety/executor.ts'), `the scan does not see the executor's call: ${JSON.stringify(callers)}`);
    assert.deepEqual(
      callers.filter((f) => !f.startsWith('safety/')),
      [],
    );
  });

  it('joint targets reach a plant only through the safety stage (src/control/safety.ts), and so does torque off', () => {
    const senders = filesMatching(/\bplant\??\.send\(|\.send\(\s*targets\b|\bplant\??\.limp\b/);
    // The stage's own calls must be seen, or an empty list below would prove nothing.
    assert.ok(senders.includes('control/safety.ts'), `the scan does not see the safety stage's send: ${JSON.stringify(senders)}`);
    assert.deepEqual(senders, ['control/safety.ts']);
  });

  it('the environment is read only by the bins (cli/bin.ts) and the logger outside any invocation (log.ts)', () => {
    const readers = filesMatching(/process\.env\b/);
    assert.ok(readers.includes('cli/bin.ts'), `the scan does not see cli/bin.ts: ${JSON.stringify(readers)}`);
    // Everything else takes the Invocation's env, so a command run in-process reads the test's.
    assert.deepEqual(readers, ['cli/bin.ts', 'log.ts']);
  });

  it('no file outside src/commands, src/cli and main.ts imports from src/cli/', () => {
    const outside = filesMatching(/from '(?:\.\.?\/)+cli\//).filter((f) => !f.startsWith('commands/') && !f.startsWith('cli/') && f !== 'main.ts');
    assert.deepEqual(outside, []);
  });

  it('no code picks an error by its name string', () => {
    assert.deepEqual(filesMatching(/\.name\s*===\s*'\w+Error'|includes\(err\.name\)/), []);
  });

  it('typed verb arguments reach the body: no erasing casts, no re-parsing in a body', () => {
    assert.deepEqual(filesMatching(/as unknown as/), []);
    assert.deepEqual(filesMatching(/(?:Number|String|Boolean)\(intent\.args/), []);
  });

  it('only the runtime body pool opens a body', () => {
    assert.deepEqual(filesMatching(/\.load\(\{/), ['runtime/body-pool.ts']);
  });

  it('the event bus (src/runtime/events.ts) reaches nothing of src/service/ or src/pilot/, not even a type', () => {
    const reached = reachedFrom('runtime/events.ts');
    // The bus's own imports must be followed, or an empty list below would prove nothing.
    assert.ok(reached.has('transcript/events.ts') && reached.has('bodies/body.ts'), `the scan does not follow the bus's imports: ${JSON.stringify([...reached.keys()])}`);
    assert.deepEqual(
      [...reached].filter(([f]) => f.startsWith('service/') || f.startsWith('pilot/')).map(([, chain]) => chain),
      [],
    );
  });

  it('src/memory/ imports nothing from src/verbs/ or src/pilot/ (a run composes memory with them, in src/run/)', () => {
    const memory = sources(join(SRC, 'memory')).map((f) => relative(SRC, f));
    const imports = memory.flatMap((f) => importsOf(f).map((dep) => `${f} → ${dep}`));
    assert.ok(imports.some((i) => i.endsWith('→ bodies/body.ts')), `the scan does not see memory's imports: ${JSON.stringify(imports)}`);
    assert.deepEqual(
      imports.filter((i) => /→ (?:verbs|pilot)\//.test(i)),
      [],
    );
  });
});
