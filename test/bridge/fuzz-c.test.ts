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

/** Where the cross compiler is missing the RP2040 build cannot run: said as a skip, never counted as a pass. */
function noCrossCompiler(): string | undefined {
  try {
    execFileSync('sh', ['-c', 'command -v arm-none-eabi-gcc'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'needs arm-none-eabi-gcc (apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi)';
  }
}

describe('firmware RP2040 build', { skip: missingTools() }, () => {
  it('compiles the core and the RP2040 HAL for Cortex-M0+', { skip: noCrossCompiler() }, () => {
    // Without PICO_SDK_PATH: the objects-only compile check, not a cmake build of the .uf2.
    const env = { ...process.env };
    delete env['PICO_SDK_PATH'];
    const out = execFileSync('make', ['-s', '-C', FW_DIR, 'mcu'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env });
    assert.match(out, /^mcu: compiled core \+ RP2040 HAL for cortex-m0plus: text [1-9]\d* B, data \d+ B, bss \d+ B/m);
    assert.doesNotMatch(out, /skipped/);
  });

  it('without the cross compiler, make mcu says what to install and exits 0 (CI without it still passes)', () => {
    const out = execFileSync('make', ['-s', '-C', FW_DIR, 'mcu', 'CROSS=quackd-no-such-arm-gcc'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    assert.equal(out, 'mcu: skipped: quackd-no-such-arm-gcc not installed (apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi)\n');
  });
});
