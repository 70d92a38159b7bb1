/**
 * zstd for a recording's chunks. Node's own zlib has it from 22.15 (the arm64 bundle's Node 22):
 * native, nothing to load or compile. Before that (Node 20: the repo's floor and the armv7
 * bundle's Node) the WebAssembly build, loaded on first need. Measured in a bare node compressing
 * 64 KiB of joint states 101 times on Node 22: RSS +2.9 MB native against +8.8 MB WebAssembly
 * (its compile, V8's tier-up, its heap), the first chunk 2-3 ms against 8-9 ms, then 0.6-0.75 ms a
 * chunk against 0.2-0.25 (zlib makes a context each call; a chunk comes once a second), the same
 * ratio. On Node 20 the WebAssembly kept a held Open Duck Mini's service 2-4 MB larger.
 */
import * as zlib from 'node:zlib';
import { logger } from '../log.js';

export interface Zstd {
  /** Where the compressor comes from, as the recording's metadata names it. */
  readonly source: 'node:zlib' | '@foxglove/wasm-zstd';
  compress(data: Uint8Array, level: number): Uint8Array;
}

/** node:zlib's zstd (Node ≥ 22.15), absent from Node 20's types. */
interface NodeZstd {
  zstdCompressSync?(data: Uint8Array, options: { params: Record<number, number> }): Uint8Array;
  constants: { ZSTD_c_compressionLevel?: number };
}

/** node:zlib's zstd, or undefined on a Node without it. */
export function nativeZstd(z: NodeZstd = zlib as NodeZstd): Zstd | undefined {
  const compressSync = z.zstdCompressSync;
  const levelParam = z.constants.ZSTD_c_compressionLevel;
  if (compressSync === undefined || levelParam === undefined) return undefined;
  return { source: 'node:zlib', compress: (data, level) => compressSync.call(z, data, { params: { [levelParam]: level } }) };
}

let loading: Promise<Zstd | undefined> | undefined;

/** The process's zstd, loaded once; undefined (said once in the log) when none can load: chunks are then stored as they are. */
export function loadZstd(): Promise<Zstd | undefined> {
  loading ??= (async () => {
    const native = nativeZstd();
    if (native !== undefined) return native;
    try {
      const wasm = await import('@foxglove/wasm-zstd');
      await wasm.isLoaded;
      return { source: '@foxglove/wasm-zstd', compress: (data, level) => wasm.compress(data, level) } satisfies Zstd;
    } catch (err) {
      logger('recording').warn({ err: err instanceof Error ? err.message : String(err) }, 'zstd cannot load: recordings are written uncompressed');
      return undefined;
    }
  })();
  return loading;
}
