/**
 * Where the control socket is: QUACKD_SOCKET, else `<data dir>/quackd.sock`. A CLI without a home
 * of its own (no QUACKD_HOME) also looks for the boot-time service's, in the system data directory.
 */
import { join } from 'node:path';
import { dataDir } from '../../config/paths.js';

/** The data directory of the boot-time service (systemd/quackd.service). */
export const SYSTEM_DATA_DIR = '/var/lib/quackd';

export function socketPath(env: NodeJS.ProcessEnv): string {
  const named = env['QUACKD_SOCKET'];
  return named !== undefined && named !== '' ? named : join(dataDir(env), 'quackd.sock');
}

/** The sockets a CLI tries, in order: its own home's, then the system service's. */
export function socketCandidates(env: NodeJS.ProcessEnv): string[] {
  const own = socketPath(env);
  const apart = (env['QUACKD_SOCKET'] ?? '') !== '' || (env['QUACKD_HOME'] ?? '') !== '';
  const system = join(SYSTEM_DATA_DIR, 'quackd.sock');
  return apart || own === system ? [own] : [own, system];
}
