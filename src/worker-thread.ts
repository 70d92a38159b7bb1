/**
 * Starts a worker thread on a module next to the caller, with the caller's own loader: the .js
 * file from dist, or the .ts file under tsx (tests, development). Node 20 runs `--import`
 * preloads (tsx) in the main thread only, so under tsx the worker is a small eval script that
 * registers tsx first and then imports the module. The memory writer and the control loop start
 * their workers here.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/** `name` (no extension) beside `base` (the caller's import.meta.url), in the caller's language. */
export function siblingModule(base: string, name: string): URL {
  return new URL(`./${name}${extname(fileURLToPath(base))}`, base);
}

export function spawnWorker(url: URL, options: WorkerOptions = {}): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url, options);
  const tsx = import.meta.resolve('tsx/esm/api');
  return new Worker(`import(${JSON.stringify(tsx)}).then((t) => (t.register(), import(${JSON.stringify(url.href)})))`, { ...options, eval: true });
}
