/**
 * A duck file named by path on the control socket, read on the asker's behalf only when the
 * asker could read it themselves: the service may be able to read files its clients cannot (a
 * root-only file, another user's home). The file is opened first and its real path taken from
 * the open descriptor, so a symlink swapped in after the check changes nothing; then every
 * directory on the way must let the asker through and the file must let the asker read, by the
 * mode bits. Any "no" reads the same as a missing file: the answer never tells whether a path
 * exists. (ACL entries are not consulted: a file readable only through one is refused.)
 */
import { closeSync, fstatSync, openSync, readFileSync, readlinkSync, statSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { MAX_DUCK_BYTES, tooLargeDuck } from '../../ducks/parse.js';
import { InputError } from '../../errors.js';
import type { Peer } from './peer.js';

/** Whether `peer` may do `bit` (4 read, 1 search) on a file with these stats. */
function may(peer: Peer, st: Stats, bit: 4 | 1): boolean {
  // Root reads and searches past the mode bits.
  if (peer.uid === 0) return true;
  if (st.uid === peer.uid) return (st.mode & (bit << 6)) !== 0;
  if (peer.groups.includes(st.gid)) return (st.mode & (bit << 3)) !== 0;
  return (st.mode & bit) !== 0;
}

/** The file's text when `peer` could read it, else undefined (whatever the reason). */
export function readAsPeer(path: string, peer: Peer): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || !may(peer, st, 4)) return undefined;
    const real = readlinkSync(`/proc/self/fd/${fd}`);
    for (let dir = dirname(real); ; dir = dirname(dir)) {
      if (!may(peer, statSync(dir), 1)) return undefined;
      if (dir === dirname(dir)) break;
    }
    // Only now, for a file the asker may read: its size may be said.
    if (st.size > MAX_DUCK_BYTES) throw tooLargeDuck(path, st.size);
    return readFileSync(fd, 'utf8');
  } catch (err) {
    if (err instanceof InputError) throw err;
    return undefined;
  } finally {
    closeSync(fd);
  }
}
