/**
 * For the bring-your-own-model tests: quackd's duck written out as somebody else's model would
 * be. A scene file that includes the robot's file and has its own floor; the joints renamed
 * (`duck_…`); the servos declared in another order than the policy's; the left sole a mesh (an
 * OBJ box of the sole's size) under `<compiler meshdir>`; and a copy of the bundled walk whose
 * manifest lists the renamed joints.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { standaloneDuckMjcf } from '../../../src/bodies/microduck/mujoco/duck-mjcf.js';
import { bundledPolicyDir } from '../../../src/policy/bundled.js';
import { MICRODUCK_JOINTS } from '../../../src/policy/microduck.js';

export const RENAMED = MICRODUCK_JOINTS.map((j) => `duck_${j}`);

/** The order the exported file declares its servos in: every joint moved. */
const SERVO_ORDER = [13, 6, 0, 11, 2, 9, 4, 12, 1, 7, 3, 10, 5, 8];

export interface ExportOptions {
  /** Leave out the gyro and orientation sensors (the plant then reads the trunk). */
  readonly noSensors?: boolean;
  /** Rename one joint (and its servo) so the policy's name is missing. */
  readonly renameJoint?: { readonly from: string; readonly to: string };
}

export interface ExportedDuck {
  /** The scene file to point `mjcf` at. */
  readonly scene: string;
  /** A walk policy folder whose manifest names the renamed joints. */
  readonly walk: string;
}

/** An OBJ box of these half sizes about its centre, faces wound outwards. */
function objBox([x, y, z]: readonly number[]): string {
  const v = [-1, 1].flatMap((sx) => [-1, 1].flatMap((sy) => [-1, 1].map((sz) => `v ${sx * (x ?? 0)} ${sy * (y ?? 0)} ${sz * (z ?? 0)}`)));
  // Vertex k (1-based) is at (±x, ±y, ±z) with bits x=4, y=2, z=1.
  const faces = ['1 2 4', '1 4 3', '5 7 8', '5 8 6', '1 5 6', '1 6 2', '3 4 8', '3 8 7', '1 3 7', '1 7 5', '2 6 8', '2 8 4'];
  return `${v.join('\n')}\n${faces.map((f) => `f ${f}`).join('\n')}\n`;
}

export function exportDuck(dir: string, options: ExportOptions = {}): ExportedDuck {
  let xml = standaloneDuckMjcf();
  for (const j of MICRODUCK_JOINTS) xml = xml.replaceAll(`name="${j}"`, `name="duck_${j}"`).replaceAll(`joint="${j}"`, `joint="duck_${j}"`);
  const servos = [...xml.matchAll(/<position class="duck"[^>]*\/>/g)].map((m) => m[0]);
  xml = xml.replace(/<actuator>[\s\S]*<\/actuator>/, `<actuator>\n    ${SERVO_ORDER.map((i) => servos[i] ?? '').join('\n    ')}\n  </actuator>`);
  const sole = /<geom name="left_sole" type="box" size="([^"]*)" pos="([^"]*)"\/>/.exec(xml);
  if (sole === null) throw new Error('own-model: the duck has no left_sole box');
  xml = xml
    .replace(sole[0], `<geom name="left_sole" type="mesh" mesh="sole" pos="${sole[2] ?? ''}"/>`)
    .replace('<compiler angle="radian" autolimits="true"/>', '<compiler angle="radian" autolimits="true" meshdir="meshes"/>\n  <asset><mesh name="sole" file="sole.obj"/></asset>');
  if (options.noSensors === true) xml = xml.replace(/<sensor>[\s\S]*<\/sensor>/, '');
  if (options.renameJoint !== undefined) xml = xml.replaceAll(`"${options.renameJoint.from}"`, `"${options.renameJoint.to}"`);
  mkdirSync(join(dir, 'meshes'), { recursive: true });
  writeFileSync(join(dir, 'meshes', 'sole.obj'), objBox((sole[1] ?? '').split(' ').map(Number)));
  writeFileSync(join(dir, 'duck.xml'), xml);
  // A floor of the user's own (named as the room's is): the room then brings none.
  const scene = join(dir, 'scene.xml');
  writeFileSync(scene, `<mujoco model="my duck's scene">\n  <include file="duck.xml"/>\n  <worldbody>\n    <geom name="floor" type="plane" size="10 10 0.05"/>\n  </worldbody>\n</mujoco>\n`);
  const walk = join(dir, 'policies', 'walk');
  cpSync(bundledPolicyDir('walk'), walk, { recursive: true });
  const manifest = JSON.parse(readFileSync(join(walk, 'manifest.json'), 'utf8')) as Record<string, unknown>;
  writeFileSync(join(walk, 'manifest.json'), JSON.stringify({ ...manifest, joints: RENAMED }, null, 2));
  return { scene, walk };
}
