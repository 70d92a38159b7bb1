/** A throwaway root for install.sh (QUACKD_ROOT): an etc/ with the files useradd and groupadd edit, root and dialout only. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './tmp.js';

export function fakeRoot(prefix: string): string {
  const root = tempDir(prefix);
  mkdirSync(join(root, 'etc'));
  writeFileSync(join(root, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/bash\n');
  writeFileSync(join(root, 'etc/group'), 'root:x:0:\ndialout:x:20:\n');
  writeFileSync(join(root, 'etc/shadow'), '');
  writeFileSync(join(root, 'etc/gshadow'), '');
  return root;
}
