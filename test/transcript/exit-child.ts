/**
 * A child process for the transcript exit tests. Usage: node --import tsx exit-child.ts DIR COUNT HOW
 * Queues COUNT events, in bursts, then leaves with the writer still open:
 *   exit    process.exit(143) at once, as the second Ctrl-C or the stop deadline does
 *   throw   an uncaught exception
 */
import { TranscriptWriter } from '../../src/transcript/writer.js';

const [dir = '.', count = '0', how = 'exit'] = process.argv.slice(2);
const w = TranscriptWriter.create(dir, 'exit');
const n = Number(count);
for (let i = 0; i < n; i++) {
  w.write({ type: 'error', message: `line ${i}` });
  // Let a few writes get under way, so one is in flight when the process goes.
  if (i % 100 === 99) await new Promise((r) => setImmediate(r));
}
if (how === 'throw') throw new Error('a bug');
process.exit(143);
