/**
 * What a microduck:jsonrpc robot is configured with: in the fleet's `robots:` section of the
 * config file, or by --port/--baud. Apart from the body so the catalog can check settings without
 * loading serialport.
 */
import { z } from 'zod';

export const jsonRpcSettings = z
  .object({
    /** The serial device, best a stable /dev/serial/by-id/… path. */
    port: z.string().min(1, 'a serial port path, e.g. /dev/serial/by-id/usb-…-if00'),
    // A flag's text and the file's number mean the same: "115200" and 115200.
    baud: z.coerce.number().int().positive().optional(),
  })
  .strict();
