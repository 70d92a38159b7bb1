/**
 * The rates a protocol's servos are found at: what a builder is told when nothing answered at
 * another. A servo at 1 Mbaud hears a scan at 115200 as noise and answers nothing, so a silent
 * bus at an unusual rate is the baud's fault far more often than the wiring's.
 */
import type { ProtocolName } from './packet.js';

export const USUAL_BAUDS: Readonly<Record<ProtocolName, readonly number[]>> = { feetech: [1_000_000], dynamixel: [57_600, 1_000_000] };

const SAID: Readonly<Record<ProtocolName, string>> = {
  feetech: "Feetech servos ship at 1000000 baud, the Open Duck Mini's STS3215 among them",
  dynamixel: 'Dynamixel X servos ship at 57600 baud, and the XL330 ducks run at 1000000',
};

/** Where the protocol's servos usually are (`Feetech servos ship at 1000000 baud, …`) when `baud` is none of them; undefined when it is one. */
export function unusualBaud(protocol: ProtocolName, baud: number): string | undefined {
  return USUAL_BAUDS[protocol].includes(baud) ? undefined : SAID[protocol];
}

/**
 * What to try when not one servo of a protocol answered at a rate: the rate its servos ship at
 * when this one is unusual, else the other protocol; `baudSetting` names the setting the rate came
 * from (`robots.duck.baud`), and `file` the config that holds it.
 */
export function silentBusHint(protocol: ProtocolName, port: string, baud: number, baudSetting?: string, file?: string): string {
  const other = protocol === 'feetech' ? 'dynamixel' : 'feetech';
  const usual = unusualBaud(protocol, baud);
  const scan = `quackd bus scan --port ${port} --protocol ${usual !== undefined ? protocol : other} --baud ${usual !== undefined ? (USUAL_BAUDS[protocol][0] ?? baud) : baud}`;
  if (usual !== undefined) return `${usual}: is ${baudSetting ?? 'the baud'} right${file !== undefined ? ` in ${file}` : ''}? '${scan}' looks without a write`;
  return `is it powered, and are they ${protocol} servos? '${scan}' tries the other protocol without a write`;
}
