/**
 * The embedded broker's logins, as a second OS user meets them (made by the test when it runs as
 * root, as CI does): the credentials file the service made at its start is 0640 in the quackd
 * group, so `quackd mqtt credentials` shows the passwords to the group's members and to nobody
 * else, and an anonymous client is turned away whoever runs it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { mqttServiceDoor } from '../../src/mqtt/service-door.js';
import { assertFreshBuild, childEnv, MAIN } from '../helpers/cli.js';
import { freePort } from '../helpers/mosquitto.js';
import { noSecondUser, secondUser, type OsUser } from '../helpers/second-user.js';
import { ServiceDouble } from '../helpers/service-double.js';

const GROUP = `qdm${process.pid}`;

describe('the MQTT credentials file and a second user', { skip: noSecondUser() }, () => {
  let home: string;
  let user: OsUser;
  let port: number;
  let stop: (() => Promise<void>) | undefined;
  /** `quackd mqtt credentials` run by the second user, as it would over SSH. */
  const credentialsAsUser = () => user.node([MAIN, 'mqtt', 'credentials'], childEnv({ QUACKD_HOME: home, NO_COLOR: '1' }));

  before(async () => {
    assertFreshBuild();
    user = secondUser();
    execFileSync('groupadd', ['-f', GROUP]);
    home = mkdtempSync(join(tmpdir(), 'quackd-creds-'));
    chmodSync(home, 0o711);
    port = await freePort();
    const config = `mqtt:\n  port: ${port}\n  users:\n    homeassistant: { may: [command] }\n`;
    writeFileSync(join(home, 'config.yaml'), config, { mode: 0o644 });
    const door = mqttServiceDoor({ port, users: { homeassistant: { may: ['command'] } } }, home, { dataDir: home, credentialsGroup: GROUP });
    assert.ok(door !== undefined);
    await door.start(new ServiceDouble([{ robot: 'den', key: 'microduck:sim2d' }]));
    stop = () => door.stop();
  });
  after(async () => {
    await stop?.();
    user?.remove();
    execFileSync('groupdel', [GROUP]);
    if (home !== undefined) rmSync(home, { recursive: true, force: true });
  });

  it('is 0640 in the group; a user outside it cannot read the passwords, one in it can', async () => {
    const file = join(home, 'mqtt-credentials.json');
    const st = statSync(file);
    assert.equal(st.mode & 0o777, 0o640);
    assert.equal(st.gid, Number(execFileSync('getent', ['group', GROUP], { encoding: 'utf8' }).split(':')[2]));
    const outside = await credentialsAsUser();
    assert.equal(outside.code, 2, outside.stdout + outside.stderr);
    assert.equal(outside.stderr, `quackd: ${file}: cannot read (EACCES)\n`);
    assert.equal(outside.stdout, '');
    execFileSync('usermod', ['-aG', GROUP, user.name]);
    const inside = await credentialsAsUser();
    assert.equal(inside.code, 0, inside.stderr);
    assert.match(inside.stdout, /^ {2}user homeassistant {2}password [A-Za-z0-9_-]{24} {2}may command$/m);
  });
});
