/**
 * A skill module whose import blocks the thread for 80 ms, as onnxruntime-node's native binding
 * does (20–30 ms here, more on a Pi): the test skills otherwise (test-skills.ts).
 */
const until = performance.now() + 80;
while (performance.now() < until);

export { createSkill } from './test-skills.js';
