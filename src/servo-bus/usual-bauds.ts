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
