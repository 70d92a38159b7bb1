/**
 * params.ts as text: what a tuning search writes back when it has found better parameters, so
 * the file keeps one canonical form (a test holds params.ts to it) and a retune is a small diff.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { jsonText } from './json-text.js';
import type { PolicyParams } from './param-types.js';

export const PARAMS_FILE = fileURLToPath(new URL('./params.ts', import.meta.url));

const HEADER = `/**
 * The bundled policies' parameters: the one file a tuning search in the MuJoCo twin rewrites
 * (with renderParams in params-file.ts, so the file stays in this form), then \`npm run
 * make:policies\` regenerates src/policy/bundled/. Meanings and units: param-types.ts.
 *
 * Written by \`npm run tune:policies\` (tune.ts): gait, balance, stance and kick are the search's
 * winner in the twin; the joint signs were measured there by moving one joint at a time.
 */
import type { PolicyParams } from './param-types.js';
`;

export function renderParams(params: PolicyParams): string {
  return `${HEADER}\nexport const PARAMS: PolicyParams = ${jsonText(params)};\n`;
}

/** Rewrites params.ts (the tuner's last step; `npm run make:policies` then regenerates the files). */
export function writeParams(params: PolicyParams, file = PARAMS_FILE): void {
  writeFileSync(file, renderParams(params));
}
