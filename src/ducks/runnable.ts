/**
 * The ducks a body can run by name: a starter or one of the user's own that parses, is no flock
 * (a flock is no one robot's), and passes the check a run makes before anything opens. What a
 * dashboard offers to start.
 */
import type { BodyEntry, RobotCan } from '../bodies/index.js';
import { checkDuckForBody } from './check.js';
import { listDucks, loadDuckFile, type DuckListing } from './find.js';

export function runnableDucks(body: BodyEntry, can: RobotCan, yoursDir?: string, origin?: DuckListing['origin']): string[] {
  // Not the listing's `valid`: that checks a duck against its own body as a robot of no settings; this robot may have a camera.
  return listDucks(yoursDir)
    .filter((d) => d.flock === undefined && (origin === undefined || d.origin === origin))
    .filter((d) => {
      try {
        checkDuckForBody(loadDuckFile(d.path), body, can);
        return true;
      } catch {
        return false;
      }
    })
    .map((d) => d.name);
}
