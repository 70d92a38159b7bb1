/**
 * The firmware's own checks: its C fuzz driver (make fuzz-run, built with ASan and UBSan) feeds
 * random bytes, mutated and overlong frames through the C decoder and the whole protocol core;
 * its deterministic tests (make check) pin the watchdog to the millisecond; the RP2040
 * build proves the core stays portable.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { FW_DIR, missingTools } from './rig.js';

describe('firmware C fuzz driver', { skip: missingTools() }, () => {
  it('finds no crash, no bad-CRC frame accepted, no garbage applied', () => {
    const out = execFileSync('make', ['-s', '-C', FW_DIR, 'fuzz-run', 'FUZZ_ITERATIONS=20000'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.match(out, /fuzz-frame: 20000 iterations, .*: OK/);
  });
});

describe('firmware core tests', { skip: missingTools() }, () => {
  it('the watchdog fires after exactly 200 ms without a heartbeat, torque on counts as one; infinite targets are refused', () => {
    const out = execFileSync('make', ['-s', '-C', FW_DIR, 'check'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.match(out, /^proto-test: OK$/m);
  });
});

describe('firmware RP2040 build', { skip: missingTools() }, () => {
  it('compiles for Cortex-M0+ where arm-none-eabi-gcc is installed, and says so where it is not', () => {
    const out = execFileSync('make', ['-s', '-C', FW_DIR, 'mcu'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.match(out, /^mcu: (compiled core \+ RP2040 HAL|skipped: arm-none-eabi-gcc not installed)/m);
  });
});
