/** The arm64 bundle (Pi 4/5, Pi Zero 2 W or Jetson on a 64-bit OS) under qemu-aarch64: test/cross/prove.ts. */
import { proveBundle } from './prove.js';

proveBundle('linux-arm64', { machine: 'AArch64', runtime: /^policy runtime +ok +onnxruntime-node \d+\.\d+\.\d+ \(native\)$/m, zstd: 'node:zlib' });
