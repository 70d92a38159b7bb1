/**
 * The values of a parsed YAML document (a duck's front matter, config.yaml) with alias expansion
 * bounded by yaml's own `maxAliasCount`, so a "billion laughs" file is one input error naming
 * its line and field rather than a crash or an exhausted heap. Callers turn the failure into
 * their usual `file:line: field: …` line.
 */
import { isMap, isNode, isScalar, isSeq, Parser, type CST, type Document, type Node } from 'yaml';
import { MAX_NESTING } from '../text/nesting.js';
import { printable } from '../text/printable.js';

/** Far more alias uses than a hand-written duck or config needs; yaml's default too, said here on purpose. */
export const MAX_ALIAS_COUNT = 100;

export type YamlValues =
  | { readonly ok: true; readonly value: unknown }
  | {
      readonly ok: false;
      /** Where the bad alias expansion is, as far as it can be narrowed down; [] for the whole document. */
      readonly path: readonly (string | number)[];
      /** Offset in the parsed text of the node at `path`, when known. */
      readonly offset: number | undefined;
      /** One line, safe to print. */
      readonly message: string;
    };

/** yaml signals every alias problem (too many, or no anchor before it) with a ReferenceError. */
function aliasError(err: unknown): ReferenceError | undefined {
  return err instanceof ReferenceError ? err : undefined;
}

function failsAlone(doc: Document, node: Node): boolean {
  try {
    node.toJS(doc, { maxAliasCount: MAX_ALIAS_COUNT });
    return false;
  } catch (err) {
    if (aliasError(err) === undefined) throw err;
    return true;
  }
}

/**
 * The deepest value that fails on its own, so the error points at the field that expands too
 * far. Each try is bounded by the same limit, so narrowing down costs little.
 */
function culprit(doc: Document, node: Node, path: (string | number)[]): { node: Node; path: (string | number)[] } {
  const children: { key: string | number; node: unknown }[] = isMap(node)
    ? node.items.map((p) => ({ key: isScalar(p.key) ? String(p.key.value) : '?', node: p.value }))
    : isSeq(node)
      ? node.items.map((n, i) => ({ key: i, node: n }))
      : [];
  for (const child of children) {
    if (isNode(child.node) && failsAlone(doc, child.node)) return culprit(doc, child.node, [...path, child.key]);
  }
  return { node, path };
}

export function yamlValues(doc: Document): YamlValues {
  try {
    const value: unknown = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    return { ok: true, value };
  } catch (err) {
    const alias = aliasError(err);
    if (alias === undefined) throw err;
    const found = isNode(doc.contents) ? culprit(doc, doc.contents, []) : undefined;
    // Matched on yaml's words: the one alias error a person needs explained rather than quoted.
    const message = /excessive alias count/i.test(alias.message)
      ? `YAML aliases expand too far (more than ${MAX_ALIAS_COUNT} alias uses, a guard against alias bombs): write the values out instead`
      : printable(alias.message.split('\n')[0] ?? 'bad YAML alias');
    return { ok: false, path: (found?.path ?? []).map((k) => (typeof k === 'string' ? printable(k) : k)), offset: found?.node.range?.[0], message };
  }
}

export interface DuplicateKey {
  /** The keys down to the duplicate one, itself last. */
  readonly path: readonly (string | number)[];
  /** Offsets of the duplicate key and of its first writing. */
  readonly offset: number;
  readonly first: number | undefined;
}

/**
 * The key yaml's DUPLICATE_KEY error at `offset` is about, and where it was written first: yaml
 * says only "Map keys must be unique", and a person looking for it wants its name. Called after
 * yamlTooDeep, so the walk's depth is bounded.
 */
export function duplicateKey(doc: Document, offset: number): DuplicateKey | undefined {
  const walk = (node: unknown, path: (string | number)[]): DuplicateKey | undefined => {
    if (isMap(node)) {
      for (const [i, pair] of node.items.entries()) {
        const key = pair.key;
        const name = isScalar(key) ? key.value : undefined;
        if (isNode(key) && key.range?.[0] === offset) {
          const first = node.items.slice(0, i).find((p) => isScalar(p.key) && p.key.value === name)?.key;
          return { path: [...path, printable(String(name ?? '?'))], offset, first: isNode(first) ? first.range?.[0] : undefined };
        }
        const found = walk(pair.value, [...path, printable(String(name ?? '?'))]);
        if (found !== undefined) return found;
      }
    } else if (isSeq(node)) {
      for (const [i, item] of node.items.entries()) {
        const found = walk(item, [...path, i]);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  return walk(doc.contents, []);
}

/** `robots.duck.baud: written twice (first on line 5): keep one`, lines as the caller counts them. */
export function twiceMessage(twice: DuplicateKey, lineOf: (offset: number) => number): string {
  return `${twice.path.join('.')}: written twice${twice.first !== undefined ? ` (first on line ${lineOf(twice.first)})` : ''}: keep one`;
}

/**
 * The offset of the first YAML collection nested past `limit`, or undefined. yaml's CST parser
 * keeps its own stack (no recursion), so this is safe on any text; the walk here is a loop too.
 * Composing the document (parseDocument) recurses, so callers ask this first.
 */
export function yamlTooDeep(text: string, limit = MAX_NESTING): number | undefined {
  const pending: { token: CST.Token | null | undefined; depth: number }[] = [];
  for (const token of new Parser().parse(text)) pending.push({ token, depth: 0 });
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { token, depth } = next;
    if (token === null || token === undefined) continue;
    if (token.type === 'document') pending.push({ token: token.value, depth });
    else if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection') {
      if (depth + 1 > limit) return token.offset;
      for (const item of token.items) pending.push({ token: item.key, depth: depth + 1 }, { token: item.value, depth: depth + 1 });
    }
  }
  return undefined;
}
