/**
 * How far the lowest point of a body tree is above the floor (z = 0), from its primitive geoms'
 * poses: used to set a tilted duck down on the floor, and to check it never sinks through.
 */
import type { MjSim } from './wasm.js';

const SPHERE = 2;
const CAPSULE = 3;
const BOX = 6;

/** Lowest z over the geoms of every body under `root` (a child of the world); +∞ if none. */
export function lowestPoint(sim: MjSim, root: number): number {
  const roots = sim.bodyRoot();
  const owner = sim.geomBody();
  const type = sim.geomType();
  const size = sim.geomSize();
  const pos = sim.geomXpos();
  const mat = sim.geomXmat();
  let lowest = Number.POSITIVE_INFINITY;
  for (let g = 0; g < sim.ngeom; g++) {
    if (roots[owner[g] ?? -1] !== root) continue;
    const z = pos[3 * g + 2] ?? 0;
    // Row 2 of the geom's rotation: how much each local axis points up.
    const ux = Math.abs(mat[9 * g + 6] ?? 0);
    const uy = Math.abs(mat[9 * g + 7] ?? 0);
    const uz = Math.abs(mat[9 * g + 8] ?? 0);
    const [sx, sy, sz] = [size[3 * g] ?? 0, size[3 * g + 1] ?? 0, size[3 * g + 2] ?? 0];
    let reach: number;
    if (type[g] === BOX) reach = ux * sx + uy * sy + uz * sz;
    else if (type[g] === CAPSULE) reach = uz * sy + sx; // radius, then half-length along local z
    else if (type[g] === SPHERE) reach = sx;
    else continue;
    lowest = Math.min(lowest, z - reach);
  }
  return lowest;
}
