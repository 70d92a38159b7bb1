/**
 * The floor of the chosen parts for bench/startup.ts: what a command cannot start without, each
 * loaded as quackd's bundle loads it and used once, and nothing of quackd: zod (the bundle's own
 * English-only chunk, shared with quackd's), yaml (a duck is YAML) and lmdb (the store the
 * episode is written to, the notes `memory show` reads). Bundled with quackd's modules
 * (cross/bundle.ts's extra entries).
 *
 *   node lib/startup-parts.js DIR PART...      (DIR: where the store is made; PART: zod, yaml, lmdb)
 */
const [dir = '.', ...parts] = process.argv.slice(2);

let duck: unknown = { name: 'floor', verbs: ['quack'], budget: { steps: 3 } };
if (parts.includes('yaml')) {
  const { parseDocument } = await import('yaml');
  duck = parseDocument('name: floor\nverbs: [quack]\nbudget: { steps: 3 }\n').toJSON();
}
if (parts.includes('zod')) {
  // The module itself: a split bundle's chunk has zod's named exports, not its `z` (the same object).
  const z = await import('zod');
  z.object({ name: z.string(), verbs: z.array(z.string()), budget: z.object({ steps: z.number().int() }) }).parse(duck);
}
if (parts.includes('lmdb')) {
  const { open } = await import('../src/memory/lmdb.js');
  const store = open({ path: `${dir}/parts-floor.lmdb` });
  await store.put('episode', { duck, ok: true });
  await store.close();
}
