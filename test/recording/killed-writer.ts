/**
 * A child for mcap-file.test.ts: records a three-joint state every 20 ms for three seconds, less than one full chunk (each one's
 * time in its `timestamp`), then dies by SIGKILL with the file never closed.
 */
import { McapFile } from '../../src/recording/mcap-file.js';
import { foxgloveTime } from '../../src/recording/time.js';

const dir = process.argv[2] ?? '.';
const file = await McapFile.create(dir, 'killed');
const until = Date.now() + 3000;
for (let i = 0; Date.now() < until; i++) {
  const now = Date.now();
  file.add('measured', now, { timestamp: foxgloveTime(now), joints: Array.from({ length: 3 }, (_, j) => ({ name: `j${j}`, position: Math.sin(i + j) })) });
  await new Promise((resolve) => setTimeout(resolve, 20));
}
process.kill(process.pid, 'SIGKILL');
