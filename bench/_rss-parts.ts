/**
 * Where a process's resident memory is (/proc/<pid>/smaps), so an RSS against a floor says what
 * the difference is made of: anonymous memory (V8's heaps, malloc's arenas, thread stacks: what a
 * process's own work holds) and the pages of the files it maps (node's binary, onnxruntime's
 * library, the other shared libraries and addons: clean pages the kernel can drop and read again,
 * counted in RSS all the same; node's binary holds ICU's data, which Intl and normalize() touch).
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

export interface RssParts {
  /** anonymous memory, the [heap] included, MB (10^6 bytes) */
  readonly anonymous: number;
  /** node's binary */
  readonly node: number;
  /** onnxruntime's shared library */
  readonly onnxruntime: number;
  /** every other file mapped */
  readonly otherFiles: number;
}

/** A process's RSS by kind; read once, as VmRSS is. */
export function rssParts(pid: number): RssParts {
  const kb = { anonymous: 0, node: 0, onnxruntime: 0, otherFiles: 0 };
  let part: keyof typeof kb = 'anonymous';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping !== null) {
      part = partOf(mapping[1] ?? '');
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss !== null) kb[part] += Number(rss[1]);
  }
  const mb = (k: number) => (k * 1024) / 1e6;
  return { anonymous: mb(kb.anonymous), node: mb(kb.node), onnxruntime: mb(kb.onnxruntime), otherFiles: mb(kb.otherFiles) };
}

function partOf(path: string): keyof RssParts {
  if (!path.startsWith('/')) return 'anonymous';
  if (path === process.execPath) return 'node';
  return basename(path).startsWith('libonnxruntime.so') ? 'onnxruntime' : 'otherFiles';
}
