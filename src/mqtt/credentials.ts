/**
 * The embedded broker's logins: one password per user, made at the service's first start and kept
 * in the data directory (`mqtt-credentials.json`, mode 0640, group `quackd` or the socket's group),
 * so the service's own client, Home Assistant and Node-RED each have one, and anonymous clients
 * are turned away. A user the config names later gets a password at the next start; the file's
 * passwords are never changed by quackd (delete a line, or the file, to make a new one).
 */
import { randomBytes } from 'node:crypto';
import { chownSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../errors.js';
import { sweepDeadTmps, tmpBeside } from '../tmp-beside.js';
import { isRecord } from '../is-record.js';
import { registerSecret } from '../secrets.js';
import { groupId } from '../config/os-group.js';

export const CREDENTIALS_FILE = 'mqtt-credentials.json';

export const credentialsPath = (dataDir: string): string => join(dataDir, CREDENTIALS_FILE);

/**
 * The passwords in the file, or undefined when there is none yet. Each is registered with the
 * redactor (no log line can carry it) unless `shown`: `quackd mqtt credentials` prints them on purpose.
 */
export function readCredentials(dataDir: string, shown = false): Map<string, string> | undefined {
  const path = credentialsPath(dataDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new InputError(`${path}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InputError(`${path}: not JSON; delete it and quackd serve makes new passwords`);
  }
  if (!isRecord(value)) throw new InputError(`${path}: not a JSON object of user → password; delete it and quackd serve makes new passwords`);
  const passwords = new Map<string, string>();
  for (const [user, password] of Object.entries(value)) if (typeof password === 'string' && password !== '') passwords.set(user, password);
  if (!shown) for (const password of passwords.values()) registerSecret(password);
  return passwords;
}

/**
 * Every user in `users` with a password, making those missing; the file is written (0640, `group`
 * when there is one) only when one was made. Returns the passwords of `users`.
 */
export function ensureCredentials(dataDir: string, users: readonly string[], group?: string): Map<string, string> {
  // A write that a crash cut short left its passwords in a temporary file: removed at each start.
  sweepDeadTmps(credentialsPath(dataDir));
  const passwords = readCredentials(dataDir) ?? new Map<string, string>();
  const missing = users.filter((u) => !passwords.has(u));
  for (const user of missing) {
    const password = randomBytes(18).toString('base64url');
    registerSecret(password);
    passwords.set(user, password);
  }
  if (missing.length > 0) {
    const path = credentialsPath(dataDir);
    const next = tmpBeside(path);
    writeFileSync(next, `${JSON.stringify(Object.fromEntries(passwords), null, 2)}\n`, { mode: 0o640 });
    const gid = group !== undefined ? groupId(group) : undefined;
    if (gid !== undefined) {
      try {
        chownSync(next, -1, gid);
      } catch {
        // Not a member of that group: the owner alone reads it (0640 without the group's use).
      }
    }
    renameSync(next, path);
  }
  return new Map(users.map((u) => [u, passwords.get(u) ?? '']));
}
