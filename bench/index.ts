/**
 * `npm run bench`: runs every bench/*.ts case in its own process (so one case's heap and JIT
 * state never colours another's) and prints their output. Each case prints its own figures and
 * ratios against a baseline measured in the same run. Not a test: nothing here fails a build.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { cpus } from 'node:os';

const dir = fileURLToPath(new URL('.', import.meta.url));
// `npm run bench control-load -- --seconds 60`: names pick cases; from the first --flag on, the rest goes to each case picked.
const args = process.argv.slice(2);
const flagsAt = args.findIndex((a) => a.startsWith('-'));
const only = flagsAt === -1 ? args : args.slice(0, flagsAt);
const passed = flagsAt === -1 ? [] : args.slice(flagsAt);
const cases = readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'index.ts' && !f.startsWith('_'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

console.log(`quackd bench · node ${process.version} · ${process.platform}/${process.arch} · ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`);
let failed = 0;
for (const file of cases) {
  console.log(`\n== ${file}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${file}`, ...passed], { stdio: 'inherit' });
  if (r.status !== 0) failed += 1;
}
process.exitCode = failed > 0 ? 1 : 0;
