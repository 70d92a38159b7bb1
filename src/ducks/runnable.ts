/**
 * The ducks a body can run by name: a starter or one of the user's own that parses, is no flock
 * (a flock is no one robot's), and passes the check a run makes before anything opens. What a
 * dashboard offers to start.
 */
import type { BodyEntry } from '../bodies/index.js';
import { checkDuckForBody } from './check.js';
import { listDucks, loadDuckFile, type DuckListing } from './find.js';

export function runnableDucks(body: BodyEntry, yoursDir?: string, origin?: DuckListing['origin']): string[] {
  return listDucks(yoursDir)
    .filter((d) => d.valid && d.flock === undefined && (origin === undefined || d.origin === origin))
    .filter((d) => {
      try {
        checkDuckForBody(loadDuckFile(d.path), body);
        return true;
      } catch {
        return false;
      }
    })
    .map((d) => d.name);
}
