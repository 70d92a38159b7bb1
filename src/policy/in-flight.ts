/**
 * The ONNX runtime's calls this thread has started and not yet seen settle (a session being made,
 * a run, a release). onnxruntime-node does that work on libuv's pool and answers on the thread
 * that asked; a worker thread that ends while one is out aborts the whole process (`terminate
 * called after throwing an instance of 'Napi::Error'`: the answer finds its thread gone). A thread
 * that means to end waits for `runtimeSettled()` first.
 */
const pending = new Set<Promise<unknown>>();

/** `call`, counted until it settles. */
export function inFlight<T>(call: Promise<T>): Promise<T> {
  pending.add(call);
  const done = (): void => void pending.delete(call);
  call.then(done, done);
  return call;
}

/** Resolves once no call is out, including any started while it waited. */
export async function runtimeSettled(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled([...pending]);
}
