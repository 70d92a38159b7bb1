/**
 * How far the lowest point of a body tree is above the floor (z = 0), from its colliding geoms'
 * poses: used to set a duck down on the floor (tilted or a user's model of any height), and to
 * check it never sinks through. Primitives exactly; meshes and the rest by their bounding box.
 */
import { MJ, type MjSim } from './wasm.js';

/** Lowest z over the colliding geoms of every body under `root` (a child of the world); +∞ if none. */
export function lowestPoint(sim: MjSim, root: number): number {
  const roots = sim.bodyRoot();
  const owner = sim.geomBody();
  const type = sim.geomType();
  const size = sim.geomSize();
  const aabb = sim.geomAabb();
  const pos = sim.geomXpos();
  const mat = sim.geomXmat();
  let lowest = Number.POSITIVE_INFINITY;
  for (let g = 0; g < sim.ngeom; g++) {
    if (roots[owner[g] ?? -1] !== root || !sim.geomCollides(g)) continue;
    const z = pos[3 * g + 2] ?? 0;
    // Row 2 of the geom's rotation: how much each local axis points up.
    const up = [mat[9 * g + 6] ?? 0, mat[9 * g + 7] ?? 0, mat[9 * g + 8] ?? 0] as const;
    const [ux, uy, uz] = up.map(Math.abs) as [number, number, number];
    const [sx, sy, sz] = [size[3 * g] ?? 0, size[3 * g + 1] ?? 0, size[3 * g + 2] ?? 0];
    let low: number;
    if (type[g] === MJ.geom.box) low = z - (ux * sx + uy * sy + uz * sz);
    else if (type[g] === MJ.geom.capsule) low = z - (uz * sy + sx); // radius, then half-length along local z
    else if (type[g] === MJ.geom.sphere) low = z - sx;
    else if (type[g] === MJ.geom.plane) continue;
    else {
      // The box's centre is offset in the geom's frame (a mesh's frame sits at its centroid).
      const c = [aabb[6 * g] ?? 0, aabb[6 * g + 1] ?? 0, aabb[6 * g + 2] ?? 0] as const;
      const h = [aabb[6 * g + 3] ?? 0, aabb[6 * g + 4] ?? 0, aabb[6 * g + 5] ?? 0] as const;
      low = z + up[0] * c[0] + up[1] * c[1] + up[2] * c[2] - (ux * h[0] + uy * h[1] + uz * h[2]);
    }
    lowest = Math.min(lowest, low);
  }
  return lowest;
}
