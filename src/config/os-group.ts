/** A group of the machine's, by name: the control socket's group, the MQTT credentials' group. */
import { readFileSync } from 'node:fs';

/** The gid of a group named in /etc/group, or undefined. */
export function groupId(name: string): number | undefined {
  try {
    const line = readFileSync('/etc/group', 'utf8').split('\n').find((l) => l.split(':')[0] === name);
    const gid = Number(line?.split(':')[2]);
    return Number.isInteger(gid) ? gid : undefined;
  } catch {
    return undefined;
  }
}
