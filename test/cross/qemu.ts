/**
 * A bundle from cross/build.sh, run under Debian's qemu-user-static with its own Node, as the
 * robot would run it. binfmt_misc is not set up in a container, so qemu is called by name with
 * the target's glibc (Debian's cross libraries, -L). onnxruntime's cpuinfo reader crashes on the
 * host's x86 /proc/cpuinfo, so each command runs in its own mount namespace with a Pi's there.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { outputOf } from '../helpers/cli.js';
import { skipOutsideCi } from '../helpers/skip.js';
import { missingTools } from '../bridge/rig.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

export type Target = 'linux-arm64' | 'linux-armv7';

interface Machine {
  readonly qemu: string;
  readonly sysroot: string;
  /** Debian's package of the sysroot's glibc and libstdc++, for the skip message. */
  readonly apt: string;
  /** The libraries the target's Node binary loads from the sysroot (armv7's links libatomic). */
  readonly libs: readonly string[];
  readonly cpuinfo: string;
}

const core = (n: number, lines: string) => `processor\t: ${n}\n${lines}\n`;
const A72 = 'BogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n';
const A72_32 = 'model name\t: ARMv7 Processor rev 3 (v7l)\nBogoMIPS\t: 108.00\nFeatures\t: half thumb fastmult vfp edsp neon vfpv3 tls vfpv4 idiva idivt vfpd32 lpae evtstrm crc32\nCPU implementer\t: 0x41\nCPU architecture: 7\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n';
const PI4 = 'Hardware\t: BCM2835\nRevision\t: c03111\nModel\t\t: Raspberry Pi 4 Model B Rev 1.1\n';

export const MACHINES: Readonly<Record<Target, Machine>> = {
  'linux-arm64': { qemu: 'qemu-aarch64-static', sysroot: '/usr/aarch64-linux-gnu', apt: 'libc6-arm64-cross libstdc++6-arm64-cross', libs: ['libstdc++.so.6'], cpuinfo: `${core(0, A72)}${core(1, A72)}${PI4}` },
  'linux-armv7': { qemu: 'qemu-arm-static', sysroot: '/usr/arm-linux-gnueabihf', apt: 'libc6-armhf-cross libstdc++6-armhf-cross libatomic1-armhf-cross', libs: ['libstdc++.so.6', 'libatomic.so.1'], cpuinfo: `${core(0, A72_32)}${core(1, A72_32)}${PI4}` },
};

const onPath = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;

/** Why a target's bundle cannot be proven here (CI installs everything: there nothing is skipped). */
export function missingForTarget(target: Target): string | undefined {
  const m = MACHINES[target];
  const missing = [
    ...(onPath(m.qemu) ? [] : ['qemu-user-static']),
    ...(m.libs.every((lib) => existsSync(join(m.sysroot, 'lib', lib))) ? [] : [m.apt]),
    ...(onPath('readelf') ? [] : ['binutils']),
    ...(onPath('unshare') ? [] : ['util-linux']),
  ];
  const why = missing.length > 0 ? `needs ${missing.join(', ')} (apt-get install ${missing.join(' ')})` : process.getuid?.() === 0 ? missingTools() : 'needs root (a mount namespace for /proc/cpuinfo, install.sh)';
  return skipOutsideCi(why);
}

export interface Built {
  readonly tarball: string;
  readonly dir: string;
  readonly buildOutput: string;
}

/** cross/build.sh TARGET into `out` (the folder is kept beside the tarball). */
export function buildBundle(target: Target, out: string): Built {
  const buildOutput = execFileSync('bash', [join(REPO, 'cross/build.sh'), target, '--out', out, '--keep'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const name = /built .*\/(quackd-[^/]+)\.tar\.gz/.exec(buildOutput)?.[1];
  if (name === undefined) throw new Error(`build.sh printed no tarball:\n${buildOutput}`);
  return { tarball: join(out, `${name}.tar.gz`), dir: join(out, name), buildOutput };
}

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `quackd ARGS` from the bundle, on its own Node under qemu, with its own QUACKD_HOME. */
export function runUnderQemu(target: Target, bundle: string, args: readonly string[], home: string): Promise<Ran> {
  const m = MACHINES[target];
  const cpuinfo = join(home, '.cpuinfo');
  if (!existsSync(cpuinfo)) writeFileSync(cpuinfo, m.cpuinfo);
  const mountThenRun = 'mount --bind "$1" /proc/cpuinfo && shift && exec "$@"';
  // --no-wasm-tier-up: V8's optimising recompile of MuJoCo's and onnxruntime-web's WebAssembly
  // is most of an emulated run (63 s → 28 s for the turn below); the baseline compiler's code runs them the same.
  const argv = ['-m', 'sh', '-c', mountThenRun, 'sh', cpuinfo, m.qemu, '-L', m.sysroot, join(bundle, 'node/bin/node'), '--no-wasm-tier-up', join(bundle, 'lib/quackd.cjs'), ...args];
  // A command stuck in emulation ends with the test rather than outliving it.
  return outputOf(spawn('unshare', argv, { env: { PATH: process.env['PATH'], QUACKD_HOME: home, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000 }));
}
