/**
 * The embedded broker's bound on one MQTT packet. aedes buffers a packet whole before anyone sees
 * it (an MQTT packet may declare up to 256 MB), so this reads each packet's fixed header as the
 * bytes arrive and says when one declares more than the limit: the connection is cut before the
 * body is held. Pure: bytes in, a verdict out.
 */

/**
 * Far above any command (src/mqtt/commands.ts takes at most 4 KB) and the service's own largest
 * message (bridge/info); far below what would strain a Pi's memory.
 */
export const MAX_PACKET_BYTES = 256 * 1024;

/** Feeds a connection's bytes in order; returns the declared size of the first packet over `limit`, else undefined. */
export function packetSizeGuard(limit = MAX_PACKET_BYTES): (chunk: Buffer) => number | undefined {
  // Where we are in the current packet: its first byte, its length's bytes, or its body.
  let state: 'type' | 'length' | 'body' = 'type';
  let length = 0;
  let shift = 0;
  let left = 0;
  return (chunk) => {
    for (let i = 0; i < chunk.length; ) {
      if (state === 'body') {
        const take = Math.min(left, chunk.length - i);
        left -= take;
        i += take;
        if (left === 0) state = 'type';
        continue;
      }
      const byte = chunk[i++]!;
      if (state === 'type') {
        state = 'length';
        length = 0;
        shift = 0;
        continue;
      }
      length += (byte & 0x7f) * 2 ** shift;
      shift += 7;
      if (length > limit) return length;
      if ((byte & 0x80) === 0) {
        left = length;
        state = left === 0 ? 'type' : 'body';
      } else if (shift > 21) return length; // a fifth length byte: not MQTT
    }
    return undefined;
  };
}
