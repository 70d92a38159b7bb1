/**
 * Writes one robot's joint table (`robots.<name>.joints`) into the config file, for `quackd
 * calibrate`. Through yaml's Document, the parser the file is read with, so comments, key order
 * and every other setting stay as written: a table already in the file has only its rows'
 * `offset` values changed; a robot without one gets the whole table, a row a line. The old file
 * is copied beside it first (`config.yaml.bak-20261202-101530`), and the new text replaces it by
 * rename, so a crash half-way leaves one file or the other whole, never a torn one. A symlinked
 * config (install.sh links /var/lib/quackd/config.yaml to /etc/quackd/config.yaml) is written at
 * its target, and the new file keeps the old one's owner, group and mode: the service's user reads
 * it through its group.
 */
import { constants } from 'node:fs';
import { access, copyFile, open, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isMap, isSeq, parseDocument, type Document, type YAMLMap } from 'yaml';
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

/** The robot's entry in the file, a map the table can be set in (an alias, `duck2: *d`, is not: writing it would change the anchor's robot). */
function robotEntry(doc: Document.Parsed, path: string, robot: string): YAMLMap {
  const entry = doc.getIn(['robots', robot], true);
  if (!isMap(entry)) throw new InputError(`${path}: robots.${robot} is not a robot's entry to write the offsets into${entry !== undefined ? ' (an alias of another? give it its own entry)' : ''}`);
  return entry;
}

/**
 * Refuses, before anything else is done (torque off makes a standing duck fall), a file (or its
 * folder, where the backup and the new text go) this user cannot write, or whose robot's entry
 * cannot take the table.
 */
export async function assertWritable(path: string, robot: string): Promise<void> {
  let target: string;
  try {
    target = await realpath(path);
    await access(target, constants.W_OK);
    await access(dirname(target), constants.W_OK);
  } catch (err) {
    throw cannot(path, err);
  }
  robotEntry(parseDocument(await readFile(target, 'utf8')), path, robot);
}

/** `text` into a new file at `tmp` with `like`'s mode, owner and group (chown needs root unless they are ours already). */
async function writeLike(tmp: string, text: string, like: { mode: number; uid: number; gid: number }, path: string): Promise<void> {
  const file = await open(tmp, 'wx', 0o600);
  try {
    await file.writeFile(text);
    const made = await file.stat();
    if (made.uid !== like.uid || made.gid !== like.gid) {
      await file.chown(like.uid, like.gid).catch((err: unknown) => {
        throw new RuntimeError(`cannot write ${path} as it was owned (uid ${like.uid}, gid ${like.gid}): chown: ${(err as NodeJS.ErrnoException).code ?? String(err)}`, 'run as root (sudo), or the service may no longer read it');
      });
    }
    // After chown, which may clear set-id bits; umask does not apply to chmod.
    await file.chmod(like.mode & 0o7777);
    await file.sync();
  } finally {
    await file.close();
  }
}

/** Sets `robots.<robot>.joints` to `rows` in the file at `path` (through a symlink, at its target); resolves with the backup's path. */
export async function writeRobotJoints(path: string, robot: string, rows: readonly JointRowValues[]): Promise<string> {
  const target = await realpath(path).catch((err: unknown) => {
    throw cannot(path, err);
  });
  const text = await readFile(target, 'utf8');
  const doc = parseDocument(text);
  const entry = robotEntry(doc, path, robot);
  const table = entry.get('joints', true);
  if (isSeq(table) && table.items.length === rows.length && table.items.every(isMap)) {
    for (const [i, row] of rows.entries()) (table.items[i] as YAMLMap).set('offset', row.offset);
  } else {
    const node = doc.createNode(rows.map((r) => ({ name: r.name, id: r.id, direction: r.direction, offset: r.offset, min: r.min, max: r.max })));
    for (const item of node.items) if (isMap(item)) item.flow = true;
    entry.set('joints', node);
  }
  let backup: string;
  const tmp = `${target}.tmp-${process.pid}`;
  try {
    backup = await backUp(target);
    await writeLike(tmp, doc.toString({ lineWidth: 0 }), await stat(target), path);
    await rename(tmp, target);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err instanceof RuntimeError ? err : cannot(path, err);
  }
  return backup;
}
