/**
 * A child process for the concurrency tests: writes notes to a store and prints `ack <id>` after
 * each write returns (synchronously, so a SIGKILL cannot eat an ack that was printed).
 * Usage: node --import tsx writer-child.ts DIR PREFIX COUNT [SHARED]
 */
import { writeSync } from 'node:fs';
import { openMemoryStore } from '../../src/memory/store.js';

const [dir, prefix, count, shared] = process.argv.slice(2);
const store = openMemoryStore(dir ?? '');
const body = store.body('microduck:sim2d');
for (let i = 0; i < Number(count); i += 1) {
  const own = body.remember({ text: `${prefix} note ${i}`, source: 'model', run: prefix ?? '' });
  writeSync(1, `ack ${own.entry?.id ?? '?'}\n`);
  if (shared !== undefined && i < Number(shared)) body.remember({ text: `shared note ${i}`, source: 'model' });
}
await store.close();
