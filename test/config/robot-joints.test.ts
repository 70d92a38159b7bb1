/**
 * Writing a robot's joint table into config.yaml (`quackd calibrate`'s save): a table the person
 * wrote keeps its comments, its layout and every other value, only the offsets change; the file's
 * mode is kept; each write leaves a backup, and two within a second do not overwrite each other.
 */
import assert from 'node:assert/strict';
import { chmodSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { writeRobotJoints } from '../../src/config/robot-joints.js';
import { OPEN_DUCK_MINI_V2 } from '../../src/bodies/microduck/servo-bus/joint-table.js';
import { tempDir } from '../helpers/tmp.js';

const TABLE = `robots:
  duck:
    body: microduck:feetech
    port: /dev/ttyACM0
    joints:
${OPEN_DUCK_MINI_V2.map((j, i) => `      - name: ${j.name} # row ${i + 1}\n        id: ${j.id}\n        direction: ${i === 3 ? -1 : 1}\n        offset: 0\n        min: ${j.min}\n        max: ${j.max}`).join('\n')}
  other:
    body: microduck:sim2d
`;

describe('writeRobotJoints', () => {
  it('changes only the offsets of a table the person wrote: comments, layout, directions and the other robot kept', async () => {
    const path = join(tempDir(), 'config.yaml');
    writeFileSync(path, TABLE);
    chmodSync(path, 0o640);
    const rows = OPEN_DUCK_MINI_V2.map((j, i) => ({ ...j, direction: i === 3 ? -1 : 1, offset: i / 100 }));
    const backup = await writeRobotJoints(path, 'duck', rows);
    const expected = TABLE.replace(/offset: 0\n/g, (() => {
      let i = 0;
      return () => `offset: ${(i++) / 100}\n`;
    })());
    assert.equal(readFileSync(path, 'utf8'), expected);
    assert.equal(readFileSync(backup, 'utf8'), TABLE);
    assert.equal(statSync(path).mode & 0o777, 0o640);
  });

  it('two writes within a second keep both backups; a robot not in the file is refused and nothing is written', async () => {
    const dir = tempDir();
    const path = join(dir, 'config.yaml');
    writeFileSync(path, TABLE);
    const a = await writeRobotJoints(path, 'duck', OPEN_DUCK_MINI_V2);
    const b = await writeRobotJoints(path, 'duck', OPEN_DUCK_MINI_V2);
    assert.notEqual(a, b);
    await assert.rejects(writeRobotJoints(path, 'nobody', OPEN_DUCK_MINI_V2), /robots\.nobody is not a robot's entry to write the offsets into/);
    assert.equal(readdirSync(dir).filter((f) => f.includes('.bak-')).length, 2);
  });
});
