/** Writes small .duck files for tests. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDuck } from '../../src/ducks/parse.js';
import type { Duck } from '../../src/ducks/duck.js';

export function duckText(frontMatter: string, body = '# Test\n\nYou are a test duck.\n\n1. Do the thing.\n'): string {
  return `---\n${frontMatter.trim()}\n---\n${body}`;
}

export function writeDuck(dir: string, name: string, frontMatter: string, body?: string): string {
  const path = join(dir, `${name}.duck`);
  writeFileSync(path, duckText(frontMatter, body));
  return path;
}

export function duck(frontMatter: string, name = 'test'): Duck {
  return parseDuck(duckText(frontMatter), `${name}.duck`, name);
}

/** A sim2d duck that snapshots (and may turn), with these strategy lines: the picture tests' duck. */
export function lookDuck(...strategy: readonly string[]): string {
  return duckText('robot: microduck:sim2d\nverbs: [snapshot, turn]\nbudgets: { steps: 4, llm_calls: 4, seconds: 60 }', `# Look\n\n## Strategy\n${strategy.map((line, i) => `${i + 1}. ${line}`).join('\n')}\n`);
}
