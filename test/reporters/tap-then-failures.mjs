// @ts-check
// npm test's reporter: node's TAP, then which tests failed and why.
// TAP puts a failure where it happened, among 1 400 tests; a CI log that keeps only its tail then
// shows the counts and not the failure. After TAP's last line this adds one block per failed
// test: its file, its path of names and the start of its error. One reporter, not TAP beside a
// second one, so that the blocks come last whichever would finish first.
// JavaScript, not TypeScript: node loads reporters before --import's hooks (tsx) are in place.
import { tap } from 'node:test/reporters';

const ERROR_LINES = 25;
const STDERR_LINES = 10;
const CANCELLED = '(cancelled: its suite or file ended first)';
/** Stack frames in node's own runner: the same in every failure, and they would crowd out the test's. */
const INTERNAL_FRAME = /^\s+at .*\(?node:(internal|async_hooks)|^\s+at (new )?(Promise|SafePromise|Array\.map) /;

/**
 * @param {AsyncIterable<import('node:test/reporters').TestEvent>} source
 * @returns {AsyncGenerator<string, void>}
 */
export default async function* tapThenFailures(source) {
  /** @type {{ where: string, path: string, error: string }[]} */
  const failed = [];
  yield* tap(watch(source, failed));
  if (failed.length === 0) return;
  yield `\n# failures (${failed.length}):\n`;
  for (const failure of failed) {
    // A test cancelled because its suite or file ended first: its name only; the parent's block says why.
    if (failure.error === CANCELLED) {
      yield `# ✖ ${failure.where}\n#   ${failure.path} ${CANCELLED}\n`;
      continue;
    }
    yield `# ✖ ${failure.where}\n#   ${failure.path}\n`;
    yield failure.error.split('\n').filter((line) => !INTERNAL_FRAME.test(line)).slice(0, ERROR_LINES).map((line) => `#     ${line}\n`).join('');
  }
}

/**
 * Passes every event on to TAP, keeping the failures.
 * @param {AsyncIterable<import('node:test/reporters').TestEvent>} source
 * @param {{ where: string, path: string, error: string }[]} failed
 */
async function* watch(source, failed) {
  /** @type {Map<number, string>} the test under way at each depth, to name a failure by its path */
  const names = new Map();
  /** @type {Map<string, string[]>} each file's last lines on stderr, for a file that failed as a whole */
  const stderr = new Map();
  for await (const event of source) {
    yield event;
    if (event.type === 'test:start') names.set(event.data.nesting, event.data.name);
    if (event.type === 'test:stderr' && event.data.file !== undefined) {
      const lines = [...(stderr.get(event.data.file) ?? []), ...event.data.message.trimEnd().split('\n')];
      stderr.set(event.data.file, lines.slice(-STDERR_LINES));
    }
    if (event.type !== 'test:fail') continue;
    const { data } = event;
    const error = /** @type {RunnerError} */ (data.details.error);
    // A suite fails because a test in it did; that test has its own block.
    if (error.failureType === 'subtestsFailed') continue;
    const path = [...Array(data.nesting).keys()].map((level) => names.get(level) ?? '?').concat(data.name);
    failed.push({
      // Its file only: the line the runner gives a test of a file it ran in a child is the file's first.
      where: data.file ?? '(no file)',
      path: path.join(' > '),
      error: error.failureType === 'cancelledByParent' ? CANCELLED : describe(error) + fileStderr(data, stderr),
    });
  }
}

/** @typedef {Error & { failureType?: string, cause?: unknown }} RunnerError */

/**
 * A file that failed as a whole (its process exited early, crashed, or failed outside any test)
 * has only 'test failed' to say; what it printed on stderr last says why.
 * @param {{ name: string, file?: string }} test
 * @param {Map<string, string[]>} stderr
 */
function fileStderr(test, stderr) {
  const lines = test.file !== undefined && test.name === test.file ? stderr.get(test.file) : undefined;
  return lines === undefined || lines.length === 0 ? '' : `\nits stderr, last lines:\n${lines.join('\n')}`;
}

/**
 * The test's own error (the runner wraps it as the cause of its own), or the runner's.
 * @param {RunnerError} error
 */
function describe(error) {
  const kind = error.failureType === undefined ? '' : `[${error.failureType}] `;
  const cause = error.cause;
  if (cause instanceof Error) return kind + (cause.stack ?? `${cause.name}: ${cause.message}`);
  if (cause !== undefined && cause !== null) return kind + String(cause);
  return kind + (error.stack ?? error.message);
}
