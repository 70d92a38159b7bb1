/**
 * A user's MJCF file and the files it refers to, read from disk for MuJoCo's in-memory filesystem
 * (the WebAssembly build sees no host files). What is referred to: `<include file>` (read in turn,
 * MJCF too), and every other `file` attribute (meshes, textures, height fields, skins), looked up
 * where MuJoCo looks: the model's folder and its `<compiler meshdir texturedir assetdir>`, and the
 * including file's folder. A candidate that does not exist is skipped: MuJoCo then names the
 * missing file itself when it compiles. The scan only finds names; MuJoCo parses the XML.
 */
import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';

/** One file to copy, by its absolute host path (MuJoCo's copy has the same path). */
export interface ModelFile {
  readonly path: string;
  readonly bytes: Uint8Array;
}

/** The model file cannot be read: missing, a folder, unreadable. */
export class ModelFileError extends Error {
  readonly kind = 'model-file' as const;
}

const TAG = /<([A-Za-z_][\w.-]*)\b([^>]*)>/g;
const ATTR = /([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const COMMENT = /<!--[\s\S]*?-->/g;
const ENTITY: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
/** Elements whose `file` is another MJCF to scan (`<model>`: MuJoCo 3.2's attached sub-models). */
const MJCF_TAGS = new Set(['include', 'model']);
const DIR_ATTRS = ['meshdir', 'texturedir', 'assetdir'] as const;

interface Tag {
  readonly name: string;
  readonly attrs: ReadonlyMap<string, string>;
}

function tags(xml: string): Tag[] {
  const found: Tag[] = [];
  for (const [, name = '', body = ''] of xml.replace(COMMENT, '').matchAll(TAG)) {
    const attrs = new Map<string, string>();
    for (const [, key = '', dq, sq] of body.matchAll(ATTR)) attrs.set(key, (dq ?? sq ?? '').replace(/&(\w+);/g, (m, e: string) => ENTITY[e] ?? m));
    found.push({ name, attrs });
  }
  return found;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** Reads the model file itself, or says in one line why it cannot. */
function readModel(path: string): Uint8Array {
  let info;
  try {
    info = statSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ModelFileError(code === 'ENOENT' || code === 'ENOTDIR' ? `${path}: no such file` : `${path}: cannot read (${code ?? String(err)})`);
  }
  if (!info.isFile()) throw new ModelFileError(`${path}: not a file (an MJCF model file, e.g. scene.xml)`);
  try {
    return readFileSync(path);
  } catch (err) {
    throw new ModelFileError(`${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/** The model file (first) and every file it refers to that exists, each once. */
export function modelFiles(modelPath: string): ModelFile[] {
  const main = resolve(modelPath);
  const root = dirname(main);
  const first: ModelFile = { path: main, bytes: readModel(main) };
  const files = new Map<string, ModelFile>([[main, first]]);
  const assets: { readonly file: string; readonly from: string }[] = [];
  const dirs = new Set<string>();
  const scan = (path: string, bytes: Uint8Array): void => {
    for (const tag of tags(Buffer.from(bytes).toString('utf8'))) {
      if (tag.name === 'compiler') for (const a of DIR_ATTRS) if (tag.attrs.has(a)) dirs.add(tag.attrs.get(a) ?? '');
      const file = tag.attrs.get('file');
      if (file === undefined || file === '') continue;
      if (!MJCF_TAGS.has(tag.name)) {
        assets.push({ file, from: dirname(path) });
        continue;
      }
      for (const candidate of isAbsolute(file) ? [file] : [resolve(root, file), resolve(dirname(path), file)]) {
        if (files.has(candidate) || !isFile(candidate)) continue;
        const bytes = readFileSync(candidate);
        files.set(candidate, { path: candidate, bytes });
        scan(candidate, bytes);
      }
    }
  };
  scan(main, first.bytes);
  for (const { file, from } of assets) {
    const bases = [...[...dirs].map((d) => resolve(root, d)), root, from];
    for (const candidate of isAbsolute(file) ? [file] : bases.map((b) => resolve(b, file))) {
      if (!files.has(candidate) && isFile(candidate)) files.set(candidate, { path: candidate, bytes: readFileSync(candidate) });
    }
  }
  return [...files.values()];
}
