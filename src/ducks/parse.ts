/**
 * Parses a `.duck` file: YAML front matter between `---` lines, then Markdown. Every error names
 * the file, the line and the field, in one line.
 */
import { LineCounter, parseDocument, isMap, isNode, isScalar } from 'yaml';
import type { z } from 'zod';
import type { BodyKey } from '../bodies/body.js';
import { DEFAULT_BODY, findBody, listBodies } from '../bodies/index.js';
import { buildFlock, type FlockSpec } from '../flock/spec.js';
import { InputError } from '../errors.js';
import { printable } from '../text/printable.js';
import { didYouMean } from '../text/suggest.js';
import { duplicateKey, twiceMessage, yamlTooDeep, yamlValues } from '../config/yaml-values.js';
import { notANumber } from '../config/number-setting.js';
import { valueAt } from '../config/value-at.js';
import { MAX_NESTING, nestingMessage } from '../text/nesting.js';
import { tooLarge } from '../text/too-large.js';
import { DEFAULT_BUDGETS, type Duck, type SuccessCheck } from './duck.js';
import { frontMatterSchema, successCheckText, type FrontMatter } from './schema.js';

const FENCE = /^---\s*$/;

function fail(source: string, line: number | undefined, message: string): never {
  throw new InputError(`${source}${line !== undefined ? `:${line}` : ''}: ${message}`);
}

function splitFrontMatter(text: string, source: string): { yaml: string; body: string; bodyLine: number } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? '')) fail(source, 1, 'a .duck file starts with YAML front matter between two "---" lines');
  const end = lines.findIndex((l, i) => i > 0 && FENCE.test(l));
  if (end < 0) fail(source, lines.length, 'the front matter is never closed with a "---" line');
  return { yaml: lines.slice(1, end).join('\n'), body: lines.slice(end + 1).join('\n'), bodyLine: end + 2 };
}

const FIELDS = ['description', 'robot', 'verbs', 'budgets', 'confirm', 'success_when', 'flock', 'steps', 'llm_calls', 'seconds', 'members', 'plan'];

/** `written` is the value at the issue's path, as the file has it: a number error says what it was. */
function describeIssue(issue: z.core.$ZodIssue, written: unknown): string {
  if (issue.code === 'unrecognized_keys') {
    const first = issue.keys[0] ?? '';
    // A key is the file's text: shown escaped, so a key cannot drive the terminal.
    return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${printable(k)}"`).join(', ')}${didYouMean(first, FIELDS)}`;
  }
  if (issue.code === 'invalid_type') {
    if (issue.expected === 'array') return 'expected a list, e.g. [quack, walk]';
    // numberSetting's own words (what was written, an example) are kept, as config.yaml's are.
    if (issue.expected === 'number' || issue.expected === 'int') return notANumber(issue, written) ?? issue.message;
    return `expected a ${issue.expected}`;
  }
  return issue.message;
}

function parseChecks(value: string | string[] | undefined): SuccessCheck[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((s) => {
    const m = successCheckText.exec(s);
    return { metric: m?.[1] ?? '', op: (m?.[2] ?? '>=') as SuccessCheck['op'], value: Number(m?.[3]) };
  });
}

/** A duck is a page of text: a megabyte is far more than one needs, and bounds what a run request can make the service hold. */
export const MAX_DUCK_BYTES = 1 << 20;

export const tooLargeDuck = (source: string, bytes: number): InputError => tooLarge(source, bytes, MAX_DUCK_BYTES, 'a duck');

export function parseDuck(text: string, source: string, name: string): Duck {
  // Characters, then bytes: a string past the limit in UTF-16 units is past it in UTF-8 too.
  if (text.length > MAX_DUCK_BYTES || Buffer.byteLength(text) > MAX_DUCK_BYTES) throw tooLargeDuck(source, Buffer.byteLength(text));
  const { yaml, body, bodyLine } = splitFrontMatter(text, source);
  const deep = yamlTooDeep(yaml, MAX_NESTING);
  // Front matter starts on line 2 of the file.
  if (deep !== undefined) fail(source, yaml.slice(0, deep).split('\n').length + 1, `front matter is ${nestingMessage()}`);
  const counter = new LineCounter();
  // logLevel error: yaml's warnings (a list as a key) would be a Node warning on stderr beside the one line; the schema says what is wrong.
  const doc = parseDocument(yaml, { lineCounter: counter, prettyErrors: false, logLevel: 'error' });
  const lineAt = (offset: number | undefined): number | undefined => (offset === undefined ? undefined : counter.linePos(offset).line + 1);
  const firstError = doc.errors[0];
  const twice = firstError?.code === 'DUPLICATE_KEY' ? duplicateKey(doc, firstError.pos[0]) : undefined;
  if (twice !== undefined) fail(source, lineAt(twice.offset), twiceMessage(twice, (offset) => lineAt(offset) ?? 1));
  if (firstError !== undefined) fail(source, lineAt(firstError.pos[0]), `front matter is not valid YAML: ${printable(firstError.message.split('\n')[0] ?? '')}`);
  const values = yamlValues(doc);
  if (!values.ok) fail(source, lineAt(values.offset) ?? 1, `${values.path.length > 0 ? values.path.join('.') : 'front matter'}: ${values.message}`);
  const raw: unknown = values.value ?? {};
  const parsed = frontMatterSchema.safeParse(raw);
  if (!parsed.success) {
    // A misspelt field (`verb:`) is the problem a person fixes, not the field it leaves missing.
    const issue = parsed.error.issues.find((i) => i.code === 'unrecognized_keys') ?? parsed.error.issues[0]!;
    const unknown = issue.code === 'unrecognized_keys' ? issue.keys[0] : undefined;
    // An unknown field is reported where it is written, with the field it was probably meant to be.
    const parent = issue.path.length === 0 ? doc.contents : doc.getIn(issue.path as (string | number)[], true);
    const keyNode = unknown !== undefined && isMap(parent) ? parent.items.find((p) => isScalar(p.key) && p.key.value === unknown)?.key : undefined;
    const node = keyNode ?? doc.getIn(issue.path as (string | number)[], true);
    let line = isNode(node) ? lineAt(node.range?.[0]) : undefined;
    for (let i = issue.path.length - 1; line === undefined && i >= 0; i--) {
      const parent = doc.getIn(issue.path.slice(0, i) as (string | number)[], true);
      line = isNode(parent) ? lineAt(parent.range?.[0]) : undefined;
    }
    const field = issue.path.length > 0 ? issue.path.join('.') : 'front matter';
    fail(source, line ?? 1, `${field}: ${describeIssue(issue, valueAt(raw, issue.path))}`);
  }
  const fm = parsed.data;
  const linesOf = (key: string, count: number): number[] =>
    Array.from({ length: count }, (_, i) => {
      const node = doc.getIn([key, i], true);
      return (isNode(node) ? lineAt(node.range?.[0]) : undefined) ?? 1;
    });
  const robotNode = doc.get('robot', true);
  const successNode = doc.get('success_when', true);
  const successLine = isNode(successNode) ? lineAt(successNode.range?.[0]) : undefined;
  const confirm = fm.confirm ?? [];
  for (const [i, v] of confirm.entries()) {
    if (!fm.verbs.includes(v)) fail(source, linesOf('confirm', confirm.length)[i], `confirm: "${v}" is not in this duck's verbs`);
  }
  const flock = fm.flock === undefined ? undefined : readFlock(fm.flock, { verbs: fm.verbs, confirm }, source, (path) => {
    const node = doc.getIn(path, true);
    return isNode(node) ? lineAt(node.range?.[0]) : undefined;
  });
  if (flock !== undefined && isNode(robotNode)) fail(source, lineAt(robotNode.range?.[0]), 'robot: a flock duck names its robots under flock.members');
  const strategy = body.split(/\r?\n/).some((l) => /^\s*\d+[.)]\s+\S/.test(l));
  if (body.trim() === '') fail(source, bodyLine, 'the duck has no text: write its role and a numbered strategy below the front matter');
  if (!strategy) fail(source, bodyLine, 'no numbered strategy: add steps like "1. search_scan to find the ball"');
  return {
    name,
    source,
    ...(fm.description !== undefined ? { description: fm.description } : {}),
    robot: (fm.robot ?? DEFAULT_BODY) as BodyKey,
    verbs: fm.verbs,
    budgets: { ...DEFAULT_BUDGETS, ...fm.budgets },
    // A flock's gated verbs ask wherever the duck runs: the coordinator is the one who answers.
    confirm: flock === undefined ? confirm : [...confirm, ...flock.gated.filter((v) => !confirm.includes(v))],
    ...(flock !== undefined ? { flock } : {}),
    successWhen: parseChecks(fm.success_when),
    text: body.trim(),
    lines: {
      verbs: linesOf('verbs', fm.verbs.length),
      confirm: linesOf('confirm', confirm.length),
      ...(isNode(robotNode) && lineAt(robotNode.range?.[0]) !== undefined ? { robot: lineAt(robotNode.range?.[0])! } : {}),
      ...(successLine !== undefined ? { successWhen: successLine } : {}),
      // `text` is trimmed: it starts after the blank lines below the front matter.
      text: bodyLine + (/^\s*/.exec(body)?.[0].split('\n').length ?? 1) - 1,
    },
  };
}

/** The `flock:` section checked against the duck and the bodies, each problem on its line. */
function readFlock(section: NonNullable<FrontMatter['flock']>, duck: { verbs: readonly string[]; confirm: readonly string[] }, source: string, lineOf: (path: (string | number)[]) => number | undefined): FlockSpec {
  const sectionLine = lineOf(['flock']) ?? 1;
  const members = section.members.map((_, i) => lineOf(['flock', 'members', i]) ?? sectionLine);
  const keys = listBodies().map((b) => b.key);
  const built = buildFlock(section, duck, { section: sectionLine, members }, {
    known: (key) => findBody(key) !== undefined,
    isHeld: (key) => findBody(key)?.perRun !== true,
    suggest: (key) => didYouMean(key, keys),
  });
  if ('members' in built) return built;
  const line = built.member !== undefined ? members[built.member] : built.field === 'plan' ? lineOf(['flock', 'plan']) : sectionLine;
  return fail(source, line ?? sectionLine, `flock.${built.field ?? (built.member !== undefined ? `members.${built.member}` : '')}: ${built.message}`);
}
