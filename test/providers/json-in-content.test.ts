import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { callsFromContent, parseArguments } from '../../src/pilot/providers/json-in-content.js';

let n = 0;
const id = (): string => `id${(n += 1)}`;
const calls = (text: string) => callsFromContent(text, id).toolCalls.map(({ name, args, error }) => ({ name, args, ...(error !== undefined ? { error } : {}) }));

describe('calls written as text', () => {
  it('reads a bare call, as Qwen 2.5 Coder writes it through Ollama', () => {
    assert.deepEqual(calls('{"name": "walk", "arguments": {"metres": 0.5}}'), [{ name: 'walk', args: { metres: 0.5 } }]);
  });

  it('reads a call in ```json fences and keeps the prose around it', () => {
    const r = callsFromContent('I will walk now.\n```json\n{"name": "walk", "arguments": {"metres": 1}}\n```\nDone.', id);
    assert.deepEqual(r.toolCalls.map((c) => [c.name, c.args]), [['walk', { metres: 1 }]]);
    assert.equal(r.text, 'I will walk now.\n\nDone.');
  });

  it('reads every <tool_call> tag (Hermes/Qwen template), the last one unclosed', () => {
    const text = '<tool_call>\n{"name": "quack", "arguments": {}}\n</tool_call>\n<tool_call>{"name": "walk", "arguments": {"metres": 2}}';
    assert.deepEqual(calls(text), [
      { name: 'quack', args: {} },
      { name: 'walk', args: { metres: 2 } },
    ]);
  });

  it('accepts "parameters" (Llama 3.x), stringified arguments, an OpenAI-style wrapper and a list', () => {
    assert.deepEqual(calls('{"name": "walk", "parameters": {"metres": 1}}'), [{ name: 'walk', args: { metres: 1 } }]);
    assert.deepEqual(calls('{"name": "walk", "arguments": "{\\"metres\\": 1}"}'), [{ name: 'walk', args: { metres: 1 } }]);
    assert.deepEqual(calls('{"type": "function", "function": {"name": "quack", "arguments": {}}}'), [{ name: 'quack', args: {} }]);
    assert.deepEqual(calls('[{"name": "quack", "arguments": {}}, {"name": "walk", "arguments": {"metres": 1}}]'), [
      { name: 'quack', args: {} },
      { name: 'walk', args: { metres: 1 } },
    ]);
  });

  it('reads consecutive objects and a call embedded in prose', () => {
    assert.deepEqual(calls('{"name": "quack", "arguments": {}}\n{"name": "walk", "arguments": {"metres": 1}}').length, 2);
    const r = callsFromContent('Sure! {"name": "quack", "arguments": {}} should do it.', id);
    assert.deepEqual(r.toolCalls.map((c) => c.name), ['quack']);
    assert.equal(r.text, 'Sure!  should do it.');
  });

  it('turns malformed JSON into an invalid call that says what was wrong', () => {
    const [call] = callsFromContent('{"name": "walk", "arguments": {"metres": 1,}}', id).toolCalls;
    assert.equal(call?.name, 'walk');
    assert.match(call?.error ?? '', /^malformed JSON in the message text \(/);
    const [fenced] = callsFromContent('```json\n{"name": "walk", "arguments": {"metres": \n```', id).toolCalls;
    assert.match(fenced?.error ?? '', /malformed JSON in a code block/);
  });

  it('turns malformed arguments into an invalid call and keeps the raw text', () => {
    const [call, ...rest] = calls('{"name": "walk", "arguments": "{metres: 1}"}');
    assert.equal(rest.length, 0);
    assert.equal(call?.name, 'walk');
    assert.equal(call?.args, '{metres: 1}');
    assert.match(call?.error ?? '', /^arguments are not valid JSON/);
  });

  it('says so when the JSON is not a call', () => {
    const [call] = calls('{"thought": "walk forward"}');
    assert.equal(call?.name, 'invalid_call');
    assert.match(call?.error ?? '', /not a tool call/);
  });

  it('leaves prose alone, and ignores calls shown inside <think>', () => {
    assert.deepEqual(calls('I think the ball is to the left.'), []);
    const r = callsFromContent('<think>maybe {"name": "kick", "arguments": {}}</think>I should look first.', id);
    assert.deepEqual(r.toolCalls, []);
    assert.match(r.text, /I should look first/);
  });

  it('gives every call its own id', () => {
    const r = callsFromContent('{"name": "quack", "arguments": {}}\n{"name": "quack", "arguments": {}}');
    assert.notEqual(r.toolCalls[0]?.id, r.toolCalls[1]?.id);
    assert.match(r.toolCalls[0]?.id ?? '', /^call_[0-9a-f]{12}$/);
  });
});

describe('parseArguments', () => {
  it('reads the shapes the wire carries', () => {
    assert.deepEqual(parseArguments('{"a": 1}'), { args: { a: 1 } });
    assert.deepEqual(parseArguments({ a: 1 }), { args: { a: 1 } });
    assert.deepEqual(parseArguments(''), { args: {} });
    assert.deepEqual(parseArguments(undefined), { args: {} });
    assert.equal(parseArguments('{"a": ').error?.startsWith('arguments are not valid JSON'), true);
  });
});
