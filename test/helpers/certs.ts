/**
 * Throwaway certificates for TLS tests, made with the machine's `openssl` in a temp folder the
 * caller removes (an `after` hook of the suite that made them): a CA, a server certificate for 127.0.0.1 and localhost signed by it (in the
 * subjectAltName: a name in the CN alone is not checked by Node), a client certificate signed by
 * it, and a second CA nobody was told about with a server certificate of its own (a broker an
 * attacker or a mistake put on the network). EC P-256 keys: made in milliseconds.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipOutsideCi } from './skip.js';

/** Why the certificate tests skip on this machine (CI has openssl). */
export const noOpenssl: string | undefined = skipOutsideCi(spawnSync('openssl', ['version']).error === undefined ? undefined : 'openssl is not installed (apt-get install openssl)');

/** PEM file paths. */
export interface KeyPair {
  readonly cert: string;
  readonly key: string;
}

export interface TestCerts {
  /** The CA the broker and quackd are told about. */
  readonly ca: string;
  /** The broker's certificate for 127.0.0.1 and localhost, signed by `ca`. */
  readonly server: KeyPair;
  /** A client certificate (CN quackd) signed by `ca`. */
  readonly client: KeyPair;
  /** A CA nobody trusts, and a server certificate for 127.0.0.1 signed by it. */
  readonly strangerCa: string;
  readonly strangerServer: KeyPair;
  /** Removes the folder they are in. */
  remove(): void;
}

function openssl(dir: string, args: readonly string[]): void {
  const r = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (r.error !== undefined) throw r.error;
  if (r.status !== 0) throw new Error(`openssl ${args[0] ?? ''} failed: ${r.stderr.trim()}`);
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function makeCa(dir: string, name: string): string {
  openssl(dir, ['req', '-x509', ...EC, '-days', '2', '-subj', `/CN=${name}`, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
  return join(dir, `${name}.crt`);
}

/** A leaf certificate `name` signed by the CA `ca` (its .crt and .key in `dir`), with the given X.509v3 extensions. */
function makeLeaf(dir: string, ca: string, name: string, cn: string, extensions: string): KeyPair {
  openssl(dir, ['req', ...EC, '-subj', `/CN=${cn}`, '-keyout', `${name}.key`, '-out', `${name}.csr`]);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.crt`]);
  return { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
}

const SERVER = 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n';
const CLIENT = 'extendedKeyUsage=clientAuth\n';

export function makeTestCerts(): TestCerts {
  const dir = mkdtempSync(join(tmpdir(), 'quackd-certs-'));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    return make(dir, remove);
  } catch (err) {
    remove();
    throw err;
  }
}

function make(dir: string, remove: () => void): TestCerts {
  const ca = makeCa(dir, 'ca');
  const strangerCa = makeCa(dir, 'stranger-ca');
  return {
    ca,
    server: makeLeaf(dir, 'ca', 'server', '127.0.0.1', SERVER),
    client: makeLeaf(dir, 'ca', 'client', 'quackd', CLIENT),
    strangerCa,
    strangerServer: makeLeaf(dir, 'stranger-ca', 'stranger-server', '127.0.0.1', SERVER),
    remove,
  };
}
