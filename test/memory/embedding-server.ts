/**
 * A loopback server speaking OpenAI's `/v1/embeddings` with a deterministic embedding: words are
 * mapped to concepts (charger, plug and battery all mean power), each concept to one of 64
 * dimensions, and the vector normalised. So chosen paraphrases are close and unrelated questions
 * are far, with no model. It records what it was sent, and can fail or hang on demand.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const DIMS = 64;
const CONCEPTS: Record<string, string> = {
  charger: 'power', charge: 'power', plug: 'power', battery: 'power', batteries: 'power', socket: 'power', recharge: 'power', juice: 'power',
  desk: 'desk', table: 'desk', office: 'desk', study: 'desk',
  ball: 'ball', toy: 'ball',
  sofa: 'sofa', couch: 'sofa', settee: 'sofa',
  stairs: 'stairs', steps: 'stairs', staircase: 'stairs',
  cat: 'cat', kitty: 'cat', pet: 'cat',
  kick: 'kick', shoot: 'kick', kicks: 'kick',
  rug: 'floor', carpet: 'floor', mat: 'floor', slippery: 'floor',
};
/** Each concept its own dimension (the last is for texts with none). */
const DIM_OF = new Map([...new Set(Object.values(CONCEPTS))].map((c, i) => [c, i]));

/** The test embedding of `text`. Only words with a concept count: the rest is noise to this model. */
export function testEmbedding(text: string, dims = DIMS): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const w of text.toLowerCase().split(/[^a-z]+/)) {
    const c = CONCEPTS[w];
    const d = c !== undefined ? DIM_OF.get(c) : undefined;
    if (d !== undefined) v[d] = (v[d] ?? 0) + 1;
  }
  const n = Math.hypot(...v);
  // A text with no known concept points where no entry with one does.
  if (n === 0) {
    v[dims - 1] = 1;
    return v;
  }
  return v.map((x) => x / n);
}

export interface EmbeddingServer {
  readonly url: string;
  readonly port: number;
  /** Every request's model and inputs, in order. */
  readonly requests: { model: string; input: string[] }[];
  /** 'ok', 'fail' (HTTP 500) or 'hang' (never answers). */
  mode: 'ok' | 'fail' | 'hang';
  close(): Promise<void>;
}

export async function startEmbeddingServer(port = 0): Promise<EmbeddingServer> {
  const requests: { model: string; input: string[] }[] = [];
  const hanging = new Set<ServerResponse>();
  const state = { mode: 'ok' as EmbeddingServer['mode'] };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
        res.writeHead(404).end();
        return;
      }
      const ask = JSON.parse(body) as { model: string; input: string | string[]; dimensions?: number };
      const input = Array.isArray(ask.input) ? ask.input : [ask.input];
      requests.push({ model: ask.model, input });
      if (state.mode === 'hang') {
        hanging.add(res);
        return;
      }
      if (state.mode === 'fail') {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'model not loaded' } }));
        return;
      }
      const data = input.map((t, index) => ({ object: 'embedding', index, embedding: testEmbedding(t, ask.dimensions) }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: ask.model, usage: { prompt_tokens: 0, total_tokens: 0 } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/v1`,
    port: bound,
    requests,
    get mode() {
      return state.mode;
    },
    set mode(m) {
      state.mode = m;
    },
    close: async () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
