/**
 * first-finder-kicks, the coordinator, on its own: fed what members did, it decides who kicks,
 * who is stopped and quacks, who is dropped, and how the flock ends. Deterministic: the same
 * inputs always give the same decisions.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planFor, type Decision, type PlanInput } from '../../src/flock/plan.js';

const ok = { status: 'success', reason: 'The ball moved 0.6 m.' } as const;
const stopped = { status: 'interrupted', reason: 'stopped by the flock' } as const;

/** Decisions as short words, for readable assertions. */
function words(ds: readonly Decision[]): string[] {
  return ds.map((d) => (d.kind === 'end' ? `end ${d.outcome.status}` : `${d.kind} ${d.member}${d.kind === 'allow' || d.kind === 'deny' ? ` ${d.verb}` : ''}`));
}

function flock(...members: string[]) {
  const plan = planFor('first-finder-kicks', members);
  const start = plan.start();
  return { plan, start, on: (input: PlanInput) => plan.on(input) };
}

describe('first-finder-kicks', () => {
  it('starts every member searching at once and gates kick', () => {
    const f = flock('a', 'b', 'c');
    assert.deepEqual(words(f.start), ['search a', 'search b', 'search c']);
    assert.deepEqual([...f.plan.gates], ['kick']);
  });

  it('the first sighting makes the finder: the others stop, then quack; only the finder kicks', () => {
    const f = flock('a', 'b', 'c');
    assert.deepEqual(words(f.on({ kind: 'sighted', member: 'b', what: 'ball at 2 m' })), ['finder b', 'stop a', 'stop c']);
    // A later sighting changes nothing: the finder is chosen once.
    assert.deepEqual(words(f.on({ kind: 'sighted', member: 'a', what: 'ball at 1 m' })), []);
    // A stopped member that reached the kick before its stop landed is denied.
    const denied = f.on({ kind: 'asks', member: 'c', verb: 'kick' });
    assert.deepEqual(words(denied), ['deny c kick']);
    assert.match(denied[0]?.kind === 'deny' ? denied[0].why : '', /b found the ball first/);
    assert.deepEqual(words(f.on({ kind: 'asks', member: 'b', verb: 'kick' })), ['allow b kick']);
    assert.deepEqual(words(f.on({ kind: 'ended', member: 'a', outcome: stopped })), ['quack a']);
    assert.deepEqual(words(f.on({ kind: 'ended', member: 'b', outcome: ok })), []);
    assert.deepEqual(words(f.on({ kind: 'ended', member: 'c', outcome: stopped })), ['quack c']);
    assert.deepEqual(words(f.on({ kind: 'ended', member: 'a', outcome: ok })), []);
    const end = f.on({ kind: 'ended', member: 'c', outcome: ok });
    assert.deepEqual(words(end), ['end success']);
    assert.equal(end[0]?.kind === 'end' ? end[0].outcome.reason : '', 'b found the ball and kicked it: The ball moved 0.6 m.');
    // After the end a late question is still answered (no), never left hanging.
    assert.deepEqual(words(f.on({ kind: 'asks', member: 'a', verb: 'kick' })), ['deny a kick']);
  });

  it('a member whose sightings it cannot read (a remote one) is the finder when it asks to kick first', () => {
    const f = flock('here', 'remote:hall/duck');
    assert.deepEqual(words(f.on({ kind: 'asks', member: 'remote:hall/duck', verb: 'kick' })), ['finder remote:hall/duck', 'stop here', 'allow remote:hall/duck kick']);
  });

  it('a member lost while searching is dropped and the flock goes on; nobody finding the ball is a failure', () => {
    const f = flock('a', 'b');
    assert.deepEqual(words(f.on({ kind: 'lost', member: 'b', why: 'went offline' })), ['drop b']);
    assert.deepEqual(words(f.on({ kind: 'ended', member: 'a', outcome: { status: 'budget', reason: 'budget: 20 steps spent' } })), ['end failure']);
  });

  it('the finder lost ends the flock in error, after the others have quacked', () => {
    const f = flock('a', 'b');
    f.on({ kind: 'sighted', member: 'a', what: 'ball' });
    assert.deepEqual(words(f.on({ kind: 'lost', member: 'a', why: 'went offline' })), ['drop a']);
    assert.deepEqual(words(f.on({ kind: 'ended', member: 'b', outcome: stopped })), ['quack b']);
    const end = f.on({ kind: 'ended', member: 'b', outcome: ok });
    assert.equal(end[0]?.kind === 'end' ? `${end[0].outcome.status}: ${end[0].outcome.reason}` : '', 'error: a found the ball, then was lost: went offline');
  });

  it("the flock's clock stops everyone, nobody quacks after it, and the outcome is a budget", () => {
    const f = flock('a', 'b', 'c');
    f.on({ kind: 'sighted', member: 'a', what: 'ball' });
    f.on({ kind: 'ended', member: 'b', outcome: stopped }); // b quacks now
    assert.deepEqual(words(f.on({ kind: 'deadline', why: "the flock's 90 s ran out" })), ['stop a', 'stop b']);
    // c was already stopping: its search ends, and it does not quack after the deadline.
    assert.deepEqual(words(f.on({ kind: 'ended', member: 'c', outcome: stopped })), []);
    f.on({ kind: 'ended', member: 'b', outcome: stopped });
    const end = f.on({ kind: 'ended', member: 'a', outcome: stopped });
    assert.equal(end[0]?.kind === 'end' ? `${end[0].outcome.status}: ${end[0].outcome.reason}` : '', "budget: the flock's 90 s ran out before a was done");
  });

  it('a finder that already kicked keeps the success when the clock runs out on a quack', () => {
    const f = flock('a', 'b');
    f.on({ kind: 'sighted', member: 'a', what: 'ball' });
    f.on({ kind: 'ended', member: 'a', outcome: ok });
    f.on({ kind: 'ended', member: 'b', outcome: stopped }); // quacking
    assert.deepEqual(words(f.on({ kind: 'deadline', why: 'time' })), ['stop b']);
    assert.deepEqual(words(f.on({ kind: 'lost', member: 'b', why: 'did not end within 5 s of its stop' })), ['drop b', 'end success']);
  });

  it('Ctrl-C stops everyone and ends interrupted, whatever was found', () => {
    const f = flock('a', 'b');
    f.on({ kind: 'sighted', member: 'a', what: 'ball' });
    assert.deepEqual(words(f.on({ kind: 'interrupted', why: 'stopped by Ctrl-C' })), ['stop a']);
    f.on({ kind: 'ended', member: 'b', outcome: stopped });
    assert.deepEqual(words(f.on({ kind: 'ended', member: 'a', outcome: stopped })), ['end interrupted']);
  });

  it('every member failing to start is an error that names each reason', () => {
    const f = flock('a', 'b');
    f.on({ kind: 'ended', member: 'a', outcome: { status: 'error', reason: 'cannot open /dev/ttyACM0' } });
    const end = f.on({ kind: 'lost', member: 'b', why: 'no quackd serve publishes quackd/b' });
    assert.equal(end.at(-1)?.kind === 'end' ? end.at(-1)?.kind : '', 'end');
    const last = end.at(-1);
    assert.equal(last?.kind === 'end' ? `${last.outcome.status}: ${last.outcome.reason}` : '', 'error: no member could search: a: cannot open /dev/ttyACM0; b: no quackd serve publishes quackd/b');
  });

  it('reads a sighting from the body measurements only', () => {
    const { plan } = flock('a');
    assert.equal(plan.sighting({ summary: 'ball found at bearing 5° left, 3.28 m', data: { ball_visible: true } }), 'ball found at bearing 5° left, 3.28 m');
    assert.equal(plan.sighting({ summary: 'no ball in sight after a full turn', data: { ball_visible: false } }), undefined);
    assert.equal(plan.sighting({ summary: 'ball found at bearing 5° left, 3.28 m' }), undefined);
  });
});
