/**
 * The bundle's bin, lib/quackd.cjs and dist/quackd.cjs (cross/bundle.ts builds it as one CommonJS
 * file). A socket client (`quackd status`, `stop`, `confirm`) or `--version` runs from this file
 * alone; any other verb loads the bundle's ES modules (main.js beside it, src/main.ts). Why two ways in: node spends
 * most of a short command's time loading ES modules (resolving each one, and each `import` of
 * node's own modules builds a facade that reads all its exports: node:fs's loads its streams).
 * One CommonJS file skips all of that: `quackd status` starts in 1.33× `node -e ""` here
 * instead of 2.31× (bench/startup.ts).
 */
import { socketClients } from '../src/commands/socket-clients.js';

const verb = process.argv[2];
if (verb === '--version' || verb === '-v' || (verb !== undefined && Object.hasOwn(socketClients, verb))) {
  // Bundled into this file, and evaluated only here.
  void Promise.all([import('../src/cli/bin.js'), import('../src/cli/dispatch.js')]).then(([{ startBin }, { dispatch }]) => {
    startBin((argv, invocation) => dispatch(socketClients, argv, invocation));
  });
} else {
  // A stack trace under --debug names the TypeScript's lines where the bundle has its maps (dist/).
  if (process.argv.includes('--debug')) process.setSourceMapsEnabled(true);
  // Not bundled: a specifier esbuild cannot read stays an import() of the file beside this one.
  const main: string = new URL('./main.js', import.meta.url).href;
  void import(main);
}
