/**
 * A builder's typo in a servo duck's `joints:` table, met through the built CLI as they meet it:
 * `quackd calibrate` and `quackd do walk` against the servo simulator at the far end of a pty.
 * Each typo is one line naming the row's key and what it takes, exit 2, before the port opens:
 * nothing is sent to a servo and the config is left as it was, with no backup made. An offset
 * past half a turn (3.5 for 0.35) is such a typo, refused rather than walked on or calibrated over.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OPEN_DUCK_MINI_V2 } from '../../../src/bodies/microduck/servo-bus/joint-table.js';
import { assertFreshBuild, runCli } from '../../helpers/cli.js';
import { HeldPty } from '../../helpers/held-pty.js';
import { ServoSim } from '../../helpers/servo-sim.js';
import { tempDir } from '../../helpers/tmp.js';

/** The README's duck with its whole table written out, row 2 (left_hip_roll) as `typo` makes it. */
const config = (port: string, typo: (row: string) => string): string =>
  `robots:\n  duck:\n    body: microduck:feetech\n    port: ${port}\n    joints:\n${OPEN_DUCK_MINI_V2.map((j, i) => {
    const row = `{ name: ${j.name}, id: ${j.id}, direction: 1, offset: 0.04, min: ${j.min}, max: ${j.max} }`;
    return `      - ${i === 1 ? typo(row) : row}\n`;
  }).join('')}`;

const TYPOS = [
  { what: 'a direction of -2', typo: (r: string) => r.replace('direction: 1', 'direction: -2'), says: 'robots.duck.joints.1.direction: a direction is 1 or -1 (-1 where the horn is mounted the other way), not -2' },
  { what: 'offset spelt ofset', typo: (r: string) => r.replace('offset:', 'ofset:'), says: 'robots.duck.joints.1.ofset: unknown key "ofset" (did you mean "offset"?)' },
  { what: 'an offset of 3.5 rad (0.35 meant)', typo: (r: string) => r.replace('offset: 0.04', 'offset: 3.5'), says: 'robots.duck.joints.1.offset: 3.5 rad is past half a turn, which no servo reads (±3.1416): a typo? set it to 0 and let quackd calibrate measure it' },
] as const;

describe('a typo in the joint table', () => {
  let pty: HeldPty;
  let sim: ServoSim;
  const homes = tempDir();

  before(async () => {
    assertFreshBuild();
    pty = await new HeldPty('quackd-joint-typo-').open();
    sim = ServoSim.open(pty.far, { protocol: 'feetech', servos: OPEN_DUCK_MINI_V2.map((j) => ({ id: j.id, model: 'STS3215' })) });
  });
  after(async () => {
    sim?.close();
    await pty?.close();
  });

  for (const { what, typo, says } of TYPOS) {
    for (const args of [['calibrate', '--robot', 'duck', '--yes'], ['do', 'walk', '0.3', '--robot', 'duck', '--yes']]) {
      it(`${what}: quackd ${args[0] === 'do' ? 'do walk' : 'calibrate'} says so in one line, exit 2, nothing sent and the config kept`, async () => {
        const home = mkdtempSync(join(homes, 'home-'));
        const file = join(home, 'config.yaml');
        const written = config(pty.near, typo);
        writeFileSync(file, written);
        const r = await runCli(args, { env: { QUACKD_HOME: home, QUACKD_MEMORY_DIR: join(home, 'memory') } });
        assert.equal(r.code, 2, r.stdout + r.stderr);
        assert.equal(r.stderr, `quackd: ${file}:7: ${says}\n`);
        assert.deepEqual(sim.writes(), [], 'nothing written to a servo');
        assert.deepEqual(sim.received, [], 'the port was not even opened');
        assert.equal(readFileSync(file, 'utf8'), written, 'the config as it was');
        assert.deepEqual(readdirSync(home).filter((f) => f.includes('.bak-')), [], 'no backup needed');
      });
    }
  }
});
