/**
 * glibc's malloc_trim(3), the one way to give the system back what a process freed in the middle
 * of its heap: glibc keeps freed memory in its arenas for the next allocation, and node has no
 * call for it. koffi (a C FFI with prebuilt binaries for every board quackd ships to) calls it from
 * the C library. Where there is no glibc (musl has no malloc_trim) or koffi cannot load, the
 * loader says why instead, in one line; nothing else changes.
 */

/** Gives back every free page of every arena; returns whether any memory was released (malloc_trim's answer). */
export type MallocTrim = () => boolean;

let loading: Promise<MallocTrim | Error> | undefined;

/** malloc_trim(0) from glibc, or why it is not here. Loaded once; never rejects. */
export function loadMallocTrim(): Promise<MallocTrim | Error> {
  loading ??= (async () => {
    if (process.platform !== 'linux') return new Error(`no glibc on ${process.platform}`);
    try {
      const koffi = (await import('koffi')).default;
      const trim = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)');
      return () => trim(0) === 1;
    } catch (err) {
      return new Error((err instanceof Error ? err.message : String(err)).split('\n')[0] ?? 'koffi failed');
    }
  })();
  return loading;
}
