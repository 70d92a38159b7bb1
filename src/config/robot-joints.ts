/**
 * Writes one robot's joint table (`robots.<name>.joints`) into the config file, for `quackd
 * calibrate`. Through yaml's Document, the parser the file is read with, so comments, key order
 * and every other setting stay as written: a table already in the file has only its rows'
 * `offset` values changed; a robot without one gets the whole table, a row a line. The old file
 * is copied beside it first (`config.yaml.bak-20261202-101530`), and the new text replaces it by
 * rename, so a crash half-way leaves one file or the other whole, never a torn one.
 */
import { constants } from 'node:fs';
import { access, copyFile, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isMap, isSeq, parseDocument, type YAMLMap } from 'yaml';
import { InputError, RuntimeError } from '../errors.js';

export interface JointRowValues {
  readonly name: string;
  readonly id: number;
  readonly direction: number;
  readonly offset: number;
  readonly min: number;
  readonly max: number;
}

const two = (n: number): string => String(n).padStart(2, '0');

/** `20261202-101530`, local time: when the backup was taken, as a person reads it in `ls`. */
export function backupStamp(d = new Date()): string {
  return `${d.getFullYear()}${two(d.getMonth() + 1)}${two(d.getDate())}-${two(d.getHours())}${two(d.getMinutes())}${two(d.getSeconds())}`;
}

/** A copy of `path` that no earlier backup is overwritten by: `.bak-<stamp>`, `-2`, `-3`… when taken within one second. */
async function backUp(path: string): Promise<string> {
  const base = `${path}.bak-${backupStamp()}`;
  for (let n = 1; ; n++) {
    const to = n === 1 ? base : `${base}-${n}`;
    try {
      await copyFile(path, to, constants.COPYFILE_EXCL);
      return to;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

const cannot = (path: string, err: unknown): RuntimeError => new RuntimeError(`cannot write ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, (err as NodeJS.ErrnoException).code === 'EACCES' ? 'the file is not yours to write: run as its owner, sudo for /etc/quackd/config.yaml' : undefined);

/** Refuses, before anything else is done, a file (or its folder, where the backup and the new text go) this user cannot write. */
export async function assertWritable(path: string): Promise<void> {
  try {
    await access(path, constants.W_OK);
    await access(dirname(path), constants.W_OK);
  } catch (err) {
    throw cannot(path, err);
  }
}

/** Sets `robots.<robot>.joints` to `rows` in the file at `path`; resolves with the backup's path. */
export async function writeRobotJoints(path: string, robot: string, rows: readonly JointRowValues[]): Promise<string> {
  const text = await readFile(path, 'utf8');
  const doc = parseDocument(text);
  const entry = doc.getIn(['robots', robot], true);
  if (!isMap(entry)) throw new InputError(`${path}: robots.${robot} is not a robot's entry to write the offsets into`);
  const table = entry.get('joints', true);
  if (isSeq(table) && table.items.length === rows.length && table.items.every(isMap)) {
    for (const [i, row] of rows.entries()) (table.items[i] as YAMLMap).set('offset', row.offset);
  } else {
    const node = doc.createNode(rows.map((r) => ({ name: r.name, id: r.id, direction: r.direction, offset: r.offset, min: r.min, max: r.max })));
    for (const item of node.items) if (isMap(item)) item.flow = true;
    entry.set('joints', node);
  }
  let backup: string;
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    backup = await backUp(path);
    await writeFile(tmp, doc.toString({ lineWidth: 0 }), { mode: (await stat(path)).mode & 0o777 });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw cannot(path, err);
  }
  return backup;
}
