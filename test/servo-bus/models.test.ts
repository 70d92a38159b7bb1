/**
 * The model tables as a body uses them: a model number read off the wire names the servo (in
 * the byte order its series uses), and register bytes become counts and back, sign-magnitude on
 * Feetech and two's complement on Dynamixel, with the units a body converts by.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SERVO_MODELS, decodeRegister, encodeRegister, feetechModelFromBytes, modelByName, modelByNumber } from '../../src/servo-bus/models.js';

describe('servo models', () => {
  it('names the common servos by the number they report', () => {
    assert.equal(modelByNumber('feetech', 777)?.name, 'STS3215');
    assert.equal(modelByNumber('dynamixel', 1200)?.name, 'XL330-M288');
    assert.equal(modelByNumber('dynamixel', 1060)?.name, 'XL430-W250');
    assert.equal(modelByNumber('dynamixel', 777), undefined, 'numbers are per protocol');
    assert.equal(new Set(SERVO_MODELS.map((m) => `${m.protocol}:${m.number}`)).size, SERVO_MODELS.length, 'no number twice');
  });

  it('reads a Feetech model number in its series byte order: STS little-endian, SCS big-endian', () => {
    assert.deepEqual(feetechModelFromBytes(0x09, 0x03), { number: 777, model: modelByName('STS3215') });
    assert.deepEqual(feetechModelFromBytes(0x05, 0x04), { number: 1284, model: modelByName('SCS0009') });
    assert.deepEqual(feetechModelFromBytes(0x34, 0x12), { number: 0x1234 });
  });

  it('has every register a body needs, and the bus watchdog on Dynamixel only', () => {
    for (const m of SERVO_MODELS) {
      const r = m.registers;
      for (const reg of [r.torqueEnable, r.goalPosition, r.presentPosition, r.presentVelocity, r.presentLoad, r.presentTemperature, r.presentVoltage]) assert.ok(reg.address >= 0);
      assert.equal(r.busWatchdog !== undefined, m.protocol === 'dynamixel', m.name);
    }
    const xl = modelByName('XL330-M288')!.registers;
    assert.deepEqual([xl.torqueEnable.address, xl.busWatchdog?.address, xl.goalPosition.address, xl.presentPosition.address], [64, 98, 116, 132]);
    const sts = modelByName('sts3215')!.registers;
    assert.deepEqual([sts.torqueEnable.address, sts.goalPosition.address, sts.presentPosition.address, sts.presentVelocity.address], [40, 42, 56, 58]);
  });

  it('Feetech signed registers are magnitude and a sign bit; Dynamixel two’s complement', () => {
    const sts = modelByName('STS3215')!.registers;
    assert.deepEqual([...encodeRegister(sts.presentVelocity, -100)], [100, 0x80]);
    assert.equal(decodeRegister(sts.presentVelocity, Uint8Array.of(100, 0x80)), -100);
    assert.equal(decodeRegister(sts.presentLoad, Uint8Array.of(0x2c, 0x05)), -300, 'load: sign at bit 10');
    assert.deepEqual([...encodeRegister(sts.positionOffset, -5)], [5, 0x08], 'offset: sign at bit 11');
    const xl = modelByName('XL330-M288')!.registers;
    assert.deepEqual([...encodeRegister(xl.goalPosition, -1)], [0xff, 0xff, 0xff, 0xff]);
    assert.equal(decodeRegister(xl.presentVelocity, Uint8Array.of(0xfe, 0xff, 0xff, 0xff)), -2);
    assert.equal(decodeRegister(modelByName('SCS0009')!.registers.presentPosition, Uint8Array.of(0x01, 0xff), 'be'), 511);
    assert.throws(() => encodeRegister(sts.positionOffset, 5000), RangeError);
  });

  it('units turn counts into SI: a turn of counts is 2π rad, a Dynamixel velocity count about 0.229 rpm', () => {
    const sts = modelByName('STS3215')!;
    assert.ok(Math.abs(sts.countsPerTurn * sts.registers.presentPosition.unit - 2 * Math.PI) < 1e-12);
    const xl = modelByName('XL330-M288')!.registers;
    // the e-manual says 0.229 rpm; DynamixelSDK's model files carry it more exactly, 0.0239691227 rad/s
    assert.ok(Math.abs(xl.presentVelocity.unit / ((0.229 * 2 * Math.PI) / 60) - 1) < 1e-3);
  });
});
