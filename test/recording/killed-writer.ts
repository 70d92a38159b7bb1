/** A child for mcap-file.test.ts: records 3000 joint states, then dies by SIGKILL with the file never closed. */
import { McapFile } from '../../src/recording/mcap-file.js';

const dir = process.argv[2] ?? '.';
const file = await McapFile.create(dir, 'killed');
for (let i = 0; i < 3000; i++) file.add('measured', Date.now(), { timestamp: { sec: 1, nsec: 0 }, joints: Array.from({ length: 14 }, (_, j) => ({ name: `j${j}`, position: Math.sin(i + j) })) });
while (file.written < 2000) await new Promise((resolve) => setTimeout(resolve, 5));
process.kill(process.pid, 'SIGKILL');
