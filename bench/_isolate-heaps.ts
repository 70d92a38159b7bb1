/**
 * Each V8 isolate's heap in a process started with `--inspect=127.0.0.1:0`: its main thread's and
 * every worker's, read through the inspector (the Chrome DevTools Protocol over its WebSocket;
 * workers through NodeWorker's sessions). RSS says how much a process holds; this says which
 * thread's JavaScript holds it. The inspector itself costs memory, so a process read this way is
 * not the one whose RSS a bench reports.
 */
import WebSocket from 'ws';

export interface IsolateHeap {
  /** `main`, or the worker's file name */
  readonly thread: string;
  /** V8's used and physical (committed, resident) heap, MB (10^6 bytes) */
  readonly used: number;
  readonly physical: number;
  /** the biggest spaces' physical sizes, MB */
  readonly spaces: Readonly<Record<string, number>>;
}

/** The port in node's "Debugger listening on ws://127.0.0.1:PORT/…" line. */
export function inspectorPort(stderr: string): number | undefined {
  const port = /Debugger listening on ws:\/\/127\.0\.0\.1:(\d+)\//.exec(stderr)?.[1];
  return port === undefined ? undefined : Number(port);
}

// Evaluated in each isolate (the inspector's command line API has require).
const HEAP = `(() => { const v8 = require('node:v8'); const h = v8.getHeapStatistics();
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name.replace(/_space$/, ''), s.physical_space_size / 1e6]));
  return JSON.stringify({ used: h.used_heap_size / 1e6, physical: h.total_physical_size / 1e6, spaces }); })()`;

interface Message {
  id?: number;
  method?: string;
  params?: { sessionId?: string; message?: string; workerInfo?: { url?: string; title?: string } };
  result?: { result?: { value?: unknown } };
}

/** Every isolate's heap in the process whose inspector listens on `port`. */
export async function isolateHeaps(port: number, timeoutMs = 5000): Promise<IsolateHeap[]> {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { webSocketDebuggerUrl?: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error(`the inspector on port ${port} lists no target`);
  const socket = new WebSocket(url);
  await new Promise<void>((resolve, reject) => socket.once('open', () => resolve()).once('error', reject));
  let nextId = 0;
  const answers = new Map<number, (m: Message) => void>();
  const workers: { sessionId: string; thread: string }[] = [];
  socket.on('message', (data: Buffer) => {
    const m = JSON.parse(data.toString('utf8')) as Message;
    if (m.method === 'NodeWorker.attachedToWorker' && m.params?.sessionId !== undefined) {
      const where = m.params.workerInfo?.url ?? m.params.workerInfo?.title ?? '';
      workers.push({ sessionId: m.params.sessionId, thread: where.split('/').at(-1) || 'worker' });
    } else if (m.method === 'NodeWorker.receivedMessageFromWorker' && m.params?.message !== undefined) {
      const inner = JSON.parse(m.params.message) as Message;
      if (inner.id !== undefined) answers.get(inner.id)?.(inner);
    } else if (m.id !== undefined) answers.get(m.id)?.(m);
  });
  const ask = (method: string, params: object, sessionId?: string): Promise<Message> =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      const timer = setTimeout(() => reject(new Error(`the inspector did not answer ${method} in ${timeoutMs} ms`)), timeoutMs);
      answers.set(id, (m) => (clearTimeout(timer), resolve(m)));
      const message = JSON.stringify({ id, method, params });
      socket.send(sessionId === undefined ? message : JSON.stringify({ id: ++nextId, method: 'NodeWorker.sendMessageToWorker', params: { sessionId, message } }));
    });
  const heapOf = async (thread: string, sessionId?: string): Promise<IsolateHeap> => {
    const m = await ask('Runtime.evaluate', { expression: HEAP, includeCommandLineAPI: true }, sessionId);
    const value = m.result?.result?.value;
    if (typeof value !== 'string') throw new Error(`the ${thread} isolate's heap could not be read: ${JSON.stringify(m)}`);
    return { thread, ...(JSON.parse(value) as Omit<IsolateHeap, 'thread'>) };
  };
  try {
    const heaps = [await heapOf('main')];
    await ask('NodeWorker.enable', { waitForDebuggerOnStart: false });
    // Attachments arrive as events after the answer; the workers of a settled process are all there by then.
    await new Promise((r) => setTimeout(r, 300));
    for (const w of workers) heaps.push(await heapOf(w.thread, w.sessionId));
    return heaps;
  } finally {
    socket.close();
  }
}
