/**
 * The BNO055 codec against the datasheet (Bosch BST-BNO055-DS000, revision 1.4, June 2016): the
 * register map (4.2, table 4-2), operation modes (3.3, table 3-5), the units (3.6.4.3 table 3-22
 * for the gyro, 3.6.5.5 table 3-31 for the quaternion, 3.6.5.7 table 3-35 for gravity), the axis
 * remap bytes of the eight placements P0-P7 (3.4, the placement table), CALIB_STAT (4.3.54).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BURST_LENGTH,
  BURST_START,
  MODE,
  OPEN_DUCK_MINI_V2_REMAP,
  OPEN_DUCK_MINI_V2_UPSIDE_DOWN_REMAP,
  REG,
  decodeBurst,
  decodeCalibration,
  decodeInt16s,
  decodeRemap,
  encodeInt16s,
  encodeOffsets,
  encodeRemap,
  formatRemap,
  parseRemap,
  type AxisRemap,
} from '../../src/imu/bno055-codec.js';

const remap = (text: string): AxisRemap => {
  const r = parseRemap(text);
  assert.ok(typeof r !== 'string', String(r));
  return r;
};

describe('BNO055 codec', () => {
  it('the register addresses and operation modes are the datasheet\'s', () => {
    assert.deepEqual(
      [REG.CHIP_ID, REG.PAGE_ID, REG.GYR_DATA, REG.QUA_DATA, REG.GRV_DATA, REG.CALIB_STAT, REG.SYS_STATUS, REG.SYS_ERR, REG.UNIT_SEL, REG.OPR_MODE, REG.PWR_MODE, REG.SYS_TRIGGER, REG.AXIS_MAP_CONFIG, REG.AXIS_MAP_SIGN],
      [0x00, 0x07, 0x14, 0x20, 0x2e, 0x35, 0x39, 0x3a, 0x3b, 0x3d, 0x3e, 0x3f, 0x41, 0x42],
    );
    // 3.6.4: accelerometer, magnetometer, gyroscope offsets, then the two radii, 0x55 to 0x6A.
    assert.deepEqual([REG.ACC_OFFSET, REG.MAG_OFFSET, REG.GYR_OFFSET, REG.ACC_RADIUS, REG.MAG_RADIUS], [0x55, 0x5b, 0x61, 0x67, 0x69]);
    assert.equal(MODE.CONFIG, 0b0000);
    assert.equal(MODE.IMUPLUS, 0b1000);
    assert.equal(MODE.NDOF, 0b1100);
    // One burst covers gyro (0x14) through the last gravity byte (0x33): 32 bytes, the SMBus block limit.
    assert.equal(BURST_START, 0x14);
    assert.equal(BURST_LENGTH, 32);
  });

  it('units: 16 LSB a degree per second, 100 LSB a m/s², 2^14 LSB a quaternion unit', () => {
    const burst = new Uint8Array(BURST_LENGTH);
    // Gyro x = 16 LSB (1 dps), y = -160 (-10 dps), z = 2880 (180 dps).
    burst.set(encodeInt16s([16, -160, 2880]), 0);
    // Quaternion w = 2^14 (1.0), x = -2^13 (-0.5).
    burst.set(encodeInt16s([16384, -8192, 0, 0]), REG.QUA_DATA - BURST_START);
    // Gravity z = 981 LSB (9.81 m/s²), x = -100 (-1 m/s²).
    burst.set(encodeInt16s([-100, 0, 981]), REG.GRV_DATA - BURST_START);
    const r = decodeBurst(burst);
    const close = (a: readonly number[], b: readonly number[]): void => a.forEach((v, i) => assert.ok(Math.abs(v - (b[i] ?? NaN)) < 1e-9, `${a.join()} vs ${b.join()}`));
    close(r.gyro, [Math.PI / 180, -Math.PI / 18, Math.PI]);
    close(r.quaternion, [1, -0.5, 0, 0]);
    close(r.gravity, [-1, 0, 9.81]);
    // Linear acceleration (LIA_DATA, 100 LSB a m/s²) x = 50 LSB: the accelerometer is it plus gravity.
    const moving = burst.slice();
    moving.set(encodeInt16s([50, 0, -20]), REG.LIA_DATA - BURST_START);
    close(decodeBurst(moving).accelerometer, [-0.5, 0, 9.61]);
    close(r.accelerometer, [-1, 0, 9.81]);
    // LSB first, two's complement (4.3: every data register pair).
    assert.deepEqual([...encodeInt16s([-1, 256])], [0xff, 0xff, 0x00, 0x01]);
    assert.deepEqual(decodeInt16s(Uint8Array.from([0x00, 0x80, 0xff, 0x7f]), 2), [-32768, 32767]);
    assert.throws(() => decodeBurst(new Uint8Array(6)), /32 bytes/);
  });

  it('the axis remap bytes of the datasheet\'s eight placements', () => {
    // 3.4: P0-P7, AXIS_MAP_CONFIG and AXIS_MAP_SIGN; P1 is the chip's default (0x24, 0x00).
    const placements: [string, string, number, number][] = [
      ['P0', '-y +x +z', 0x21, 0x04],
      ['P1', '+x +y +z', 0x24, 0x00],
      ['P2', '-x -y +z', 0x24, 0x06],
      ['P3', '+y -x +z', 0x21, 0x02],
      ['P4', '+x -y -z', 0x24, 0x03],
      ['P5', '+y +x -z', 0x21, 0x01],
      ['P6', '-y -x -z', 0x21, 0x07],
      ['P7', '-x +y -z', 0x24, 0x05],
    ];
    for (const [name, text, config, sign] of placements) {
      assert.deepEqual(encodeRemap(remap(text)), { config, sign }, name);
      assert.equal(formatRemap(decodeRemap(config, sign) ?? remap('+x +y +z')), text, name);
    }
    // The Open Duck Mini v2 reference runtime's remaps (Y, X, Z; −, +, + and upside down −, −, −): P0 and P6.
    assert.deepEqual(encodeRemap(remap(OPEN_DUCK_MINI_V2_REMAP)), { config: 0x21, sign: 0x04 });
    assert.deepEqual(encodeRemap(remap(OPEN_DUCK_MINI_V2_UPSIDE_DOWN_REMAP)), { config: 0x21, sign: 0x07 });
  });

  it('a remap naming an axis twice or not three signed axes is refused in one line', () => {
    assert.match(String(parseRemap('+x +x +z')), /names a chip axis twice/);
    assert.match(String(parseRemap('x y z')), /not three signed axes/);
    // A mirror (determinant −1) is no placement: P0–P7 are rotations.
    assert.match(String(parseRemap('-y -x +z')), /mirrors the axes.*e\.g\. "-y -x -z"$/);
    // 0b11 is invalid, and so is an axis used twice (3.4): the chip keeps its old remap.
    assert.equal(decodeRemap(0x27, 0), undefined);
    assert.equal(decodeRemap(0x20, 0), undefined);
  });

  it('CALIB_STAT: sys in bits 7:6, gyro 5:4, accelerometer 3:2, magnetometer 1:0', () => {
    assert.deepEqual(decodeCalibration(0xff), { sys: 3, gyro: 3, acc: 3, mag: 3 });
    assert.deepEqual(decodeCalibration(0b00_11_01_00), { sys: 0, gyro: 3, acc: 1, mag: 0 });
    assert.deepEqual(decodeCalibration(0b10_00_00_11), { sys: 2, gyro: 0, acc: 0, mag: 3 });
  });

  it('calibration offsets are written as LSB-first int16 blocks at their registers, only those given', () => {
    const blocks = encodeOffsets({ accelerometer: [-22, 3, 10], gyroscope: [-1, 0, 2], accelerometer_radius: 1000 });
    assert.deepEqual(
      blocks.map((b) => [b.register, [...b.bytes]]),
      [
        [0x55, [0xea, 0xff, 0x03, 0x00, 0x0a, 0x00]],
        [0x61, [0xff, 0xff, 0x00, 0x00, 0x02, 0x00]],
        [0x67, [0xe8, 0x03]],
      ],
    );
    assert.deepEqual(encodeOffsets({}), []);
  });
});
