/**
 * Which config file serve and every command read: --config (QUACKD_CONFIG), else the machine's
 * /etc/quackd/config.yaml when it exists, else the data directory's; a QUACKD_HOME of one's own
 * reads its own only. (The machine's path is a parameter here, so no test depends on /etc.)
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { configPath, configSource, withConfigFlag } from '../../src/config/file.js';
import { tempDir } from '../helpers/tmp.js';

describe('the config file serve reads', () => {
  const dir = tempDir('quackd-config-path-');
  const system = join(dir, 'etc-config.yaml');
  const absent = join(dir, 'absent.yaml');

  it('the machine\'s config when it exists, else ~/.quackd/config.yaml', () => {
    writeFileSync(system, 'robots: {}\n');
    assert.equal(configPath({}, system), system);
    assert.equal(configSource({}, system), "the machine's config");
    assert.equal(configPath({}, absent), join(homedir(), '.quackd', 'config.yaml'));
  });

  it('--config wins over both', () => {
    const env = withConfigFlag({ QUACKD_HOME: dir }, 'fleet.yaml');
    assert.equal(configPath(env, system), join(process.cwd(), 'fleet.yaml'));
    assert.equal(configSource(env, system), '--config or QUACKD_CONFIG');
    assert.deepEqual(withConfigFlag({ QUACKD_HOME: dir }, undefined), { QUACKD_HOME: dir });
  });

  it('a QUACKD_HOME of its own reads its own config.yaml, never the machine\'s', () => {
    assert.equal(configPath({ QUACKD_HOME: dir }, system), join(dir, 'config.yaml'));
    assert.equal(configSource({ QUACKD_HOME: dir }, system), 'QUACKD_HOME');
  });
});
