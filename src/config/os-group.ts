/** A group of the machine's: the control socket's group, the MQTT credentials' group, the one that owns an I²C bus. */
import { readFileSync } from 'node:fs';

/** /etc/group's line whose field `field` (0: name, 2: gid) is `value`, split; undefined when none or unreadable. */
function groupLine(field: number, value: string): string[] | undefined {
  try {
    return readFileSync('/etc/group', 'utf8')
      .split('\n')
      .map((l) => l.split(':'))
      .find((f) => f[field] === value);
  } catch {
    return undefined;
  }
}

/** The gid of a group named in /etc/group, or undefined. */
export function groupId(name: string): number | undefined {
  const gid = Number(groupLine(0, name)?.[2]);
  return Number.isInteger(gid) ? gid : undefined;
}

/** The name of the group with that gid in /etc/group, or undefined. */
export const groupName = (gid: number): string | undefined => groupLine(2, String(gid))?.[0];
