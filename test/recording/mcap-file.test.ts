/** The recording's file: what is added reads back with the indexed reader; a killed writer's file reads with the streaming one. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { jointState } from '../../src/recording/joint-messages.js';
import { McapFile } from '../../src/recording/mcap-file.js';
import { nativeZstd } from '../../src/recording/zstd.js';
import { readIndexed, readStreaming, type JointState } from '../helpers/mcap.js';
import { tempDir } from '../helpers/tmp.js';

const NAMES = Array.from({ length: 14 }, (_, i) => `j${i}`);
const positions = (n: number) => NAMES.map((_, i) => Math.sin(n + i));
/** Joint state n as the file takes it (CDR), at 1.5 s past the epoch. */
const joints = (n: number) => jointState(NAMES, Float64Array.from(positions(n)), 1500)!;
/** …and as it reads back. */
const read = (n: number): JointState => ({ header: { stamp: { sec: 1, nanosec: 500_000_000 }, frame_id: '' }, name: NAMES, position: positions(n), velocity: [], effort: [] });

test('messages added read back with the indexed reader: channels, schemas, counts; the file is private', async () => {
  const dir = tempDir();
  const file = await McapFile.create(dir, 'run-1');
  const t0 = Date.now();
  for (let i = 0; i < 500; i++) assert.equal(file.add('measured', t0 + i * 20, joints(i)), true);
  file.add('log', t0, { timestamp: { sec: 1, nsec: 0 }, level: 2, message: 'hello', name: 'start', file: '', line: 0 });
  await file.close();
  await file.close();
  assert.equal(file.dropped, 0);
  assert.equal(file.add('log', t0, {}), false, 'a closed file takes nothing');
  const back = await readIndexed(join(dir, 'run-1.mcap'));
  assert.deepEqual(Object.fromEntries(back.schemas), { '/joints/measured': 'sensor_msgs/msg/JointState', '/log': 'foxglove.Log' });
  assert.deepEqual(Object.fromEntries(back.counts), { '/joints/measured': 500, '/log': 1 });
  assert.deepEqual(back.messages.get('/joints/measured')?.[7], read(7));
  assert.equal(statSync(join(dir, 'run-1.mcap')).mode & 0o777, 0o600);
});

test('a short recording is stored uncompressed; a long one in zstd chunks from the first that fills', async () => {
  const dir = tempDir();
  const t0 = Date.now();
  const short = await McapFile.create(dir, 'short');
  for (let i = 0; i < 5; i++) short.add('measured', t0 + i * 20, joints(i));
  await short.close();
  const shortBack = await readIndexed(join(dir, 'short.mcap'));
  assert.deepEqual(shortBack.compressions, ['']);
  assert.equal(shortBack.metadata.get('quackd.recording')?.get('zstd'), undefined);
  assert.deepEqual(shortBack.messages.get('/joints/measured')?.[3], read(3));
  const long = await McapFile.create(dir, 'long');
  for (let i = 0; i < 1000; i++) long.add('measured', t0 + i * 20, joints(i));
  await long.close();
  const longBack = await readIndexed(join(dir, 'long.mcap'));
  assert.ok(longBack.compressions.length > 2, `${longBack.compressions.length} chunks`);
  assert.ok(longBack.compressions.every((c) => c === 'zstd'), longBack.compressions.join(' '));
  assert.equal(longBack.counts.get('/joints/measured'), 1000);
  assert.deepEqual(longBack.messages.get('/joints/measured')?.[999], read(999));
  // Node's own zstd where this Node has it (22.15 on), the WebAssembly build before.
  assert.equal(longBack.metadata.get('quackd.recording')?.get('zstd'), nativeZstd() !== undefined ? 'node:zlib' : '@foxglove/wasm-zstd');
});

test("node:zlib's zstd is taken when Node has it, at the level asked; a Node without it has none", () => {
  const calls: unknown[] = [];
  const zlib = { constants: { ZSTD_c_compressionLevel: 100 }, zstdCompressSync: (data: Uint8Array, options: unknown) => (calls.push(options), data.subarray(1)) };
  const zstd = nativeZstd(zlib);
  assert.equal(zstd?.source, 'node:zlib');
  assert.deepEqual(zstd?.compress(Uint8Array.of(1, 2, 3), 1), Uint8Array.of(2, 3));
  assert.deepEqual(calls, [{ params: { 100: 1 } }]);
  assert.equal(nativeZstd({ constants: {} }), undefined);
  assert.equal(nativeZstd({ constants: { ZSTD_c_compressionLevel: 100 } }), undefined);
});

test('a second recording of one run id is refused, the first left as it was', async () => {
  const dir = tempDir();
  const file = await McapFile.create(dir, 'run-1');
  await assert.rejects(McapFile.create(dir, 'run-1'), /EEXIST/);
  await file.close();
  assert.equal((await readIndexed(join(dir, 'run-1.mcap'))).counts.size, 0);
});

test('a writer killed mid-recording leaves a file the streaming reader reads: all but its last second', async () => {
  const dir = tempDir();
  const child = fileURLToPath(new URL('./killed-writer.ts', import.meta.url));
  const run = spawnSync(process.execPath, ['--import', 'tsx', child, dir], { encoding: 'utf8', timeout: 60_000 });
  const killedAt = Date.now();
  assert.equal(run.signal, 'SIGKILL', run.stderr);
  const back = await readStreaming(join(dir, 'killed.mcap'));
  assert.equal(back.complete, false, 'no footer: the process never closed it');
  const measured = (back.messages.get('/joints/measured') ?? []) as JointState[];
  assert.equal(back.schemas.get('/joints/measured'), 'sensor_msgs/msg/JointState');
  // Three seconds at 50 Hz were added; a chunk closes at least once a second, so what is lost is the last second (and the 100 ms the child takes to die).
  const last = measured.at(-1)?.header.stamp;
  assert.ok(last !== undefined, 'no joint state read back');
  const lostMs = killedAt - (last.sec * 1000 + last.nanosec / 1e6);
  assert.ok(lostMs < 1500, `the file ends ${lostMs} ms before the kill`);
  assert.ok(measured.length >= 60, `${measured.length} joint states read back`);
});
