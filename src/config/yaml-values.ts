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
