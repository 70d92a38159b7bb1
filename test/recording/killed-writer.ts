/**
 * A child for mcap-file.test.ts: records a three-joint state every 20 ms for three seconds, less than one full chunk (each one's
 * time in its header's stamp), then dies by SIGKILL with the file never closed.
 */
import { jointState } from '../../src/recording/joint-messages.js';
import { McapFile } from '../../src/recording/mcap-file.js';

const dir = process.argv[2] ?? '.';
const file = await McapFile.create(dir, 'killed');
const until = Date.now() + 3000;
for (let i = 0; Date.now() < until; i++) {
  const now = Date.now();
  file.add('measured', now, jointState(['j0', 'j1', 'j2'], Float64Array.from([0, 1, 2], (j) => Math.sin(i + j)), now));
  await new Promise((resolve) => setTimeout(resolve, 20));
}
process.kill(process.pid, 'SIGKILL');
