/**
 * The host firmware's shared plant file (quackd-fw-host --plant, firmware-bridge's hal/host/plant.h):
 * the firmware writes its goals at GOALS_AT and reads the joints' state from STATE_AT. The test
 * plants on the far side of it (the MuJoCo twin, a builder's hands) share this layout.
 */
export const JOINTS = 14;
export const GOALS_AT = 0;
export const GOALS_BYTES = 4 + 4 + 4 * JOINTS + 4;
export const STATE_AT = 128;
export const STATE_BYTES = 4 + 4 * (2 * JOINTS + 6) + 4;
export const FILE_BYTES = 512;
