/**
 * The armv7 bundle (a 32-bit OS) under qemu-arm: test/cross/prove.ts. onnxruntime-node has no
 * armv7 build, so the policies run on onnxruntime-web, and health says so.
 */
import { proveBundle } from './prove.js';

proveBundle('linux-armv7', { machine: 'ARM', runtime: /^policy runtime +ok +onnxruntime-web \d+\.\d+\.\d+ \(WebAssembly: onnxruntime-node cannot load here \(.+\)\)$/m, zstd: '@foxglove/wasm-zstd' });
