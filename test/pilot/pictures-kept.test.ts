/**
 * A conversation keeps only its newest pictures (PICTURES_KEPT): each request is sent whole, so a
 * pilot that looks after every turn would otherwise pay for every picture again in every call.
 * The older tool results keep their words and say the picture went; the bytes counted are the
 * ones each request carried.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Picture } from '../../src/bodies/body.js';
import { PICTURES_KEPT } from '../../src/pilot/loop.js';
import type { PilotMessage } from '../../src/pilot/providers/provider.js';
import { duck } from '../helpers/ducks.js';
import { harness } from '../helpers/run-harness.js';
import { scripted } from '../helpers/scripted-provider.js';

const picture = (n: number): Picture => ({ mediaType: 'image/jpeg', base64: Buffer.from(`picture number ${n}`).toString('base64'), width: 512, height: 384 });

describe('pictures kept in the conversation', () => {
  it(`keeps the newest ${PICTURES_KEPT}, and counts what each request carried`, async () => {
    const h = harness(duck('verbs: [quack]\nbudgets: { steps: 6, llm_calls: 8 }'));
    const perform = h.body.perform.bind(h.body);
    let taken = 0;
    h.body.perform = async (intent, signal) => ({ ...(await perform(intent, signal)), picture: picture(++taken) });
    const quack = [{ name: 'quack', args: {} }];
    const provider = Object.assign(scripted([quack, quack, quack, quack, quack, [{ name: 'declare_success', args: { reason: 'quacked' } }]]), { seesImages: true });
    const result = await h.fly(provider);
    const shownIn = (i: number) => (provider.requests[i]?.messages ?? []).filter((m): m is PilotMessage & { role: 'tool' } => m.role === 'tool' && m.image !== undefined).map((m) => m.image?.base64);
    assert.deepEqual([0, 1, 2, 3, 4, 5].map((i) => shownIn(i).length), [0, 1, 2, 3, 3, 3]);
    assert.deepEqual(shownIn(5), [3, 4, 5].map((n) => picture(n).base64));
    const tools = provider.requests[5]?.messages.filter((m): m is PilotMessage & { role: 'tool' } => m.role === 'tool') ?? [];
    assert.deepEqual(tools.map((m) => m.content.endsWith('(its picture is no longer shown: newer ones are)')), [true, true, false, false, false]);
    const carried = provider.requests.reduce((sum, r) => sum + r.messages.reduce((s, m) => s + (m.role === 'tool' && m.image !== undefined ? m.image.base64.length : 0), 0), 0);
    assert.deepEqual(result.pictures, { shown: 5, bytes: carried });
  });
});
