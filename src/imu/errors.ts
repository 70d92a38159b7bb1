/**
 * What can go wrong with the IMU, as typed errors with one-line messages naming the bus and the
 * address. Like the bridge's and the servo bus's errors they know nothing of exit codes: the body
 * makes a verb's failure of them, health a line.
 */
export class ImuError extends Error {
  override readonly name: string = 'ImuError';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/** Nothing answers at the address: not wired, another address (0x29 with ADR high), I²C off. */
export class ImuSilentError extends ImuError {
  override readonly name = 'ImuSilentError';
  constructor(
    readonly where: string,
    readonly reason: string,
  ) {
    super(`no BNO055 answers on ${where}: ${reason}`, 'check the wiring (SDA, SCL, 3.3 V), the address (0x28, or 0x29 with ADR high) and that I²C is on (raspi-config)');
  }
}

/**
 * /dev/i2c-N does not open for the user quackd runs as: not in the group that owns it (EACCES), or
 * a device policy refuses it (EPERM: systemd's DevicePolicy without DeviceAllow=char-i2c). Not
 * the chip's silence: no wiring check helps, so the line says what does.
 */
export class ImuNoAccessError extends ImuError {
  override readonly name = 'ImuNoAccessError';
  constructor(
    readonly where: string,
    readonly path: string,
    readonly why: string,
  ) {
    super(`cannot open ${path} for the BNO055 (${where}): ${why}`);
  }
}

/** Something answers, but its CHIP_ID is not the BNO055's. */
export class ImuWrongChipError extends ImuError {
  override readonly name = 'ImuWrongChipError';
  constructor(
    readonly where: string,
    readonly chipId: number,
  ) {
    super(`the chip on ${where} is not a BNO055 (chip id 0x${chipId.toString(16).padStart(2, '0')}, a BNO055 says 0xa0)`);
  }
}

/** A read or write failed after the chip was set up: the reading can no longer be trusted. */
export class ImuLostError extends ImuError {
  override readonly name = 'ImuLostError';
  constructor(
    readonly where: string,
    readonly reason: string,
  ) {
    super(`the BNO055 on ${where} stopped answering: ${reason}`);
  }
}

/** The `i2c-bus` addon is missing or not built for this Node (it is an optional dependency). */
export class I2cAddonMissingError extends ImuError {
  override readonly name = 'I2cAddonMissingError';
  constructor(readonly reason: string) {
    super(`the i2c-bus addon is not installed/built here: ${reason}`, 'npm install i2c-bus@5.2.3 where quackd is installed (it builds with g++, make and python3)');
  }
}
