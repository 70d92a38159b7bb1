/**
 * An ASCII picture of the sim2d room for transcripts: walls `#`, sofa `S`, ball `o` (or the
 * letter of each thing in the lookout room), the robot as an arrow pointing where it faces.
 * 0.2 m a column, 0.4 m a row (terminal cells are tall).
 */
import { ROOM, SOFA, type Pose, type Vec } from './arena.js';

const COL = 0.2;
const ROW = 0.4;

function arrow(heading: number): string {
  const octant = Math.round((((heading % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI)) / (Math.PI / 2)) % 4;
  return ['>', '^', '<', 'v'][octant] ?? '>';
}

/** A thing drawn on the floor plan: one character at a spot. */
export interface Mark {
  readonly at: Vec;
  readonly char: string;
}

export function renderAscii(duck: Pose, ball: Vec): string {
  return renderRoom(duck, [{ at: ball, char: 'o' }]);
}

export function renderRoom(robot: Pose, marks: readonly Mark[]): string {
  const cols = Math.round((ROOM.x1 - ROOM.x0) / COL);
  const rows = Math.round((ROOM.y1 - ROOM.y0) / ROW);
  const grid: string[][] = [];
  for (let r = 0; r < rows; r++) grid.push(Array.from({ length: cols }, () => ' '));
  const cell = (p: Vec): [number, number] => [
    Math.min(rows - 1, Math.max(0, rows - 1 - Math.floor(p.y / ROW))),
    Math.min(cols - 1, Math.max(0, Math.floor(p.x / COL))),
  ];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const x = (c + 0.5) * COL;
      const y = (rows - 1 - r + 0.5) * ROW;
      if (x >= SOFA.x0 && x <= SOFA.x1 && y >= SOFA.y0 && y <= SOFA.y1) grid[r]![c] = 'S';
    }
  }
  for (const mark of marks) {
    const [r, c] = cell(mark.at);
    grid[r]![c] = mark.char;
  }
  const [dr, dc] = cell(robot);
  grid[dr]![dc] = arrow(robot.heading);
  const wall = `+${'-'.repeat(cols)}+`;
  return [wall, ...grid.map((row) => `|${row.join('')}|`), wall].join('\n');
}
