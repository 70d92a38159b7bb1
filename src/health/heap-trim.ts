/**
 * `heap trim`: whether a service here can give back what it freed once idle (src/service/heap-trim.ts):
 * glibc's malloc_trim through koffi, loaded as the service loads it. Without it a held robot's
 * service keeps 10-30 MB more than it uses: worth a warning on a board with 512 MB.
 */
import { loadMallocTrim } from '../service/malloc-trim.js';
import { ok, warn, type HealthCheck } from './check.js';

export const heapTrimCheck: HealthCheck = {
  name: 'heap trim',
  run: async () => {
    const trim = await loadMallocTrim();
    return trim instanceof Error ? warn(`unavailable (${trim.message}): a service keeps the memory it freed`) : ok('malloc_trim from glibc: a service gives back the memory it freed once idle');
  },
};
