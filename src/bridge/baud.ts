/**
 * The firmware's UART rate (firmware-bridge/), unless a robot's settings say otherwise. Apart from
 * protocol.ts, whose message schemas a robot's settings (read by every command) do not need.
 */
export const DEFAULT_BAUD = 1_000_000;
