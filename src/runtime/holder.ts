/**
 * Who holds a robot: the front door a run came through and who knocked there (a CLI user, an MQTT
 * client, an MCP session), kept with the robot from the moment a run claims it until it lets go.
 * A second run is refused in words that name the holder and since when, and the journal says who
 * started each run. A door says who asked as well as it knows: the control socket is its owner's
 * (or its group's), and an MQTT broker other than the embedded one does not say which client sent.
 */
import { userInfo } from 'node:os';
import { printable } from '../text/printable.js';

export type Door = 'cli' | 'mqtt' | 'mcp';

/** Who asked for a run: `{ door: 'mcp', who: 'session 3f2a1b9c (claude-ai 0.1.0)' }`. */
export interface RunBy {
  readonly door: Door;
  readonly who: string;
}

/** A robot's claim: who, since when, and the duck it runs (none while its sensors are read). */
export interface Holder {
  readonly by: RunBy;
  readonly since: Date;
  readonly duck?: string;
}

/** `mcp session 3f2a1b9c (claude-ai 0.1.0)`, `cli user ana (uid 1000)`, `mqtt client ha-den`. */
export function byText(by: RunBy): string {
  return `${by.door} ${by.who}`;
}

/** Words a client chose for itself (an MCP client's name, an MQTT client id): one printable line, cut short. */
export function clientWords(text: string, max = 64): string {
  const line = printable(text.trim());
  return line.length > max ? `${line.slice(0, max - 1)}…` : line || '?';
}

/** The user this process runs as: the CLI's own, or the one a local `quackd run` holds the robot for. */
export function cliUser(): RunBy {
  const uid = process.getuid?.();
  let name: string | undefined;
  try {
    name = userInfo().username;
  } catch {
    // A uid with no passwd entry (a container): the number says it.
  }
  const id = uid !== undefined ? `uid ${uid}` : `pid ${process.pid}`;
  return { door: 'cli', who: name !== undefined ? `user ${clientWords(name, 32)} (${id})` : id };
}
