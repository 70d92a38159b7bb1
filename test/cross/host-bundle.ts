/**
 * The bundle's code (cross/bundle.ts) laid out as build.sh lays it out, with this machine's node
 * as node/bin/node and this repo's node_modules for the external packages: the bundle as it runs
 * here, for what needs no emulation (the launcher, install.sh, the code esbuild rewrote).
 */
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundle } from '../../cross/bundle.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

export async function hostBundle(dir: string): Promise<void> {
  await bundle(dir);
  mkdirSync(join(dir, 'node/bin'), { recursive: true });
  symlinkSync(process.execPath, join(dir, 'node/bin/node'));
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  cpSync(join(REPO, 'cross/files/quackd'), join(dir, 'bin/quackd'));
  cpSync(join(REPO, 'systemd'), join(dir, 'systemd'), { recursive: true });
}
