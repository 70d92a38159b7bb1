/**
 * A picture a verb returns (a camera frame) reaches a model that reads pictures in its API's own
 * wire format, asserted on the request bodies a loopback server received: OpenAI-compatible
 * servers get an `image_url` data URI in a user message right after the tool results (a tool
 * message carries text only), Anthropic an image block inside the `tool_result`. A pilot that
 * reads words only is told in words that a picture was taken, and is sent no picture.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import type { Picture } from '../../src/bodies/body.js';
import { createAnthropicProvider } from '../../src/pilot/providers/anthropic.js';
import { createOpenAiProvider } from '../../src/pilot/providers/openai.js';
import type { PilotMessage } from '../../src/pilot/providers/provider.js';
import { anthropicMessage, openaiText, startLlmServer, textBlock, type LlmServer } from '../helpers/llm-server.js';
import { duck } from '../helpers/ducks.js';
import { harness } from '../helpers/run-harness.js';
import { scripted } from '../helpers/scripted-provider.js';
import { TEST_KEY, never, options, request } from './request.js';

/** A 1×1 JPEG's bytes are not the point: the same base64 must arrive untouched. */
const PICTURE: Picture = { mediaType: 'image/jpeg', base64: Buffer.from('not really a jpeg, but bytes all the same').toString('base64'), width: 512, height: 384 };

const history: PilotMessage[] = [
  { role: 'user', content: 'Find the ball.' },
  { role: 'assistant', text: '', toolCalls: [{ id: 'c1', name: 'quack', args: {} }, { id: 'c2', name: 'walk', args: { metres: 0.2 } }] },
  { role: 'tool', callId: 'c1', name: 'quack', content: 'ok — quacked', image: PICTURE },
  { role: 'tool', callId: 'c2', name: 'walk', content: 'ok — walked 0.20 m' },
  { role: 'user', content: 'Observation: a red ball ahead.' },
];

describe('pictures to the pilot', () => {
  let server: LlmServer;
  before(async () => {
    server = await startLlmServer({ apiKey: TEST_KEY });
  });
  after(async () => server.close());
  beforeEach(() => void server.requests.splice(0));

  it('OpenAI-compatible: both tool results first, then one user message naming the call and carrying the data URI', async () => {
    server.reply(openaiText('ok'));
    await createOpenAiProvider({ ...options(`${server.url}/v1`), images: true }).next(request(history), never());
    const messages = (server.requests[0]?.body as { messages: { role: string; content: unknown; tool_call_id?: string }[] }).messages;
    assert.deepEqual(
      messages.map((m) => m.role),
      ['system', 'user', 'assistant', 'tool', 'tool', 'user', 'user'],
    );
    assert.equal(messages[3]?.content, 'ok — quacked', 'the tool message is text');
    assert.deepEqual(messages[5]?.content, [
      { type: 'text', text: 'the picture quack returned (call c1):' },
      { type: 'image_url', image_url: { url: `data:image/jpeg;base64,${PICTURE.base64}` } },
    ]);
    assert.equal(messages[6]?.content, 'Observation: a red ball ahead.');
  });

  it('Anthropic: the image block inside its tool_result, beside the words', async () => {
    server.reply(anthropicMessage([textBlock('ok')]));
    await createAnthropicProvider({ ...options(server.url), keyHint: 'ANTHROPIC_API_KEY' }).next(request(history), never());
    const messages = (server.requests[0]?.body as { messages: { role: string; content: { type: string; tool_use_id?: string; content?: unknown }[] }[] }).messages;
    const results = messages[2]?.content.filter((b) => b.type === 'tool_result');
    assert.deepEqual(results?.[0], {
      type: 'tool_result',
      tool_use_id: 'c1',
      content: [
        { type: 'text', text: 'ok — quacked' },
        { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: PICTURE.base64 } },
      ],
    });
    assert.deepEqual(results?.[1], { type: 'tool_result', tool_use_id: 'c2', content: 'ok — walked 0.20 m' });
  });

  for (const sees of [false, true]) {
    it(`through the loop, a pilot that ${sees ? 'reads pictures gets the picture' : 'reads words only is told so, and gets no picture'}`, async () => {
      const h = harness(duck('verbs: [quack]\nbudgets: { steps: 2, llm_calls: 3 }'));
      const perform = h.body.perform.bind(h.body);
      h.body.perform = async (intent, signal) => ({ ...(await perform(intent, signal)), picture: PICTURE });
      const provider = Object.assign(scripted([[{ name: 'quack', args: {} }], [{ name: 'declare_success', args: { reason: 'quacked' } }]]), { seesImages: sees });
      await h.fly(provider);
      const tool = provider.requests[1]?.messages.find((m): m is PilotMessage & { role: 'tool' } => m.role === 'tool');
      assert.ok(tool !== undefined);
      if (sees) {
        assert.deepEqual(tool.image, PICTURE);
        assert.doesNotMatch(tool.content, /words only/);
      } else {
        assert.equal(tool.image, undefined);
        assert.match(tool.content, /a picture was taken too; this pilot reads words only/);
      }
      // The transcript never holds the picture's bytes.
      assert.ok(!JSON.stringify(h.events).includes(PICTURE.base64));
    });
  }
});
