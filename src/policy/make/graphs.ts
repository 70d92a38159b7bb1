/**
 * The bundled policies as ONNX graphs: parametric controllers, not trained networks. Each one is
 * features of the observation (phase shapes, clamped command, IMU terms) times fixed matrices of
 * leg-space directions (synergies.ts), plus the stance offset, divided by the action scale:
 *
 *   actions = (F(obs) · M + obs · K_balance + stance) / action_scale
 *
 * README.md beside src/policy writes out F and M for each graph; the tests check the outputs
 * for hand-made inputs.
 */
import { OBS_LEN } from '../layouts.js';
import { MICRODUCK_ACTIONS } from '../microduck.js';
import { GraphBuilder, type Matrix } from './onnx-graph.js';
import type { GaitParams, PolicyParams } from './param-types.js';
import { Synergies, zeroRow, type JointRow, type Side } from './synergies.js';

// quackd-gait-1 indices (README.md): the twist command and the phase.
const VX = 48;
const VY = 49;
const VYAW = 50;
const COS = 51;
const SIN = 52;
// Shared by every Microduck layout.
const GYRO_X = 0;
const GYRO_Y = 1;
const GRAVITY_X = 3;
const GRAVITY_Y = 4;

const SIDES: readonly Side[] = ['left', 'right'];

const scaled = (rows: readonly JointRow[], scale: number): Matrix => rows.map((r) => r.map((v) => v / scale));

/** obs (width × 14) → joint offsets from the IMU terms (BalanceParams): rows for ω_x, ω_y, g_x, g_y. */
function balanceMatrix(p: PolicyParams, width: number): Matrix {
  const syn = new Synergies(p.signs);
  const rows = Array.from({ length: width }, zeroRow);
  const b = p.balance;
  const at = (i: number): JointRow => rows[i] ?? zeroRow();
  for (const side of SIDES) {
    // Pitch ≈ g_x, nose down +: swing the legs back under the trunk, press the toes.
    syn.swing(at(GRAVITY_X), side, -b.pitchHip);
    syn.swing(at(GYRO_Y), side, -b.pitchHipRate);
    syn.toeDown(at(GRAVITY_X), side, b.pitchAnkle);
    syn.toeDown(at(GYRO_Y), side, b.pitchAnkleRate);
    // Roll ≈ -g_y, left side up +: feet to the left rolls the trunk back.
    syn.roll(at(GRAVITY_Y), side, -b.rollHip);
    syn.roll(at(GYRO_X), side, b.rollHipRate);
  }
  return scaled(rows, p.actionScale);
}

function stanceRow(p: PolicyParams): readonly number[] {
  const syn = new Synergies(p.signs);
  const row = zeroRow();
  for (const side of SIDES) {
    syn.crouch(row, side, p.stance.crouch);
    syn.swing(row, side, p.stance.lean);
    syn.roll(row, side, side === 'left' ? p.stance.splay : -p.stance.splay);
  }
  return scaled([row], p.actionScale)[0] ?? row;
}

/** feature (1 × k) · M + obs · K_balance + stance, as the graph's output. */
function finish(g: GraphBuilder, features: string, m: Matrix, p: PolicyParams): string {
  const gait = g.matmul(features, m, 'synergy');
  const balance = g.matmul(g.input, balanceMatrix(p, g.inputWidth), 'balance');
  return g.op('Add', [g.op('Add', [gait, balance]), g.row('stance', stanceRow(p))]);
}

export interface GraphInfo {
  readonly name: string;
  readonly doc: string;
  readonly params: unknown;
}

function serialise(g: GraphBuilder, output: string, info: GraphInfo): Uint8Array {
  return g.model({ output, outputName: 'actions', outputWidth: MICRODUCK_ACTIONS, name: info.name, doc: info.doc, metadata: { 'quackd.params': JSON.stringify(info.params) } });
}

/** The command × a gate that is 0 below each axis's deadband and 1 from 1 mm/s (or mrad/s) above it. */
function deadband(g: GraphBuilder, command: string, band: NonNullable<GaitParams['deadband']>): string {
  const over = g.op('Sub', [g.op('Abs', [command]), g.row('deadband', [band.vx, band.vy, band.vyaw])]);
  const gate = g.op('Clip', [g.op('Mul', [over, g.scalar('deadband_gain', 1000)]), g.scalar('deadband_zero', 0), g.scalar('deadband_one', 1)]);
  return g.op('Mul', [command, gate]);
}

/**
 * The walk (and turn) gait, quackd-gait-1. Features:
 *   a = min(1, |vx|·a_vx + |vy|·a_vy + |vyaw|·a_vyaw)  (command clamped to its ranges first,
 *   and zero on an axis below its deadband, when the params give one)
 *   F = [a·relu(s), a·relu(−s), a·s, c·vx, c·vy, c·vyaw]
 * M rows: left crouch, right crouch (stepHeight); sway on both hip rolls; fore-aft swing, sideways
 * roll and hip yaw, left −, right + (stridePerVx, lateralPerVy, yawPerVyaw).
 */
export function gaitGraph(p: PolicyParams, gait: GaitParams, name: string): Uint8Array {
  const g = new GraphBuilder('obs', OBS_LEN['quackd-gait-1']);
  const command = g.pick([[[VX, 1]], [[VY, 1]], [[VYAW, 1]]], 'command');
  const { vx, vy, vyaw } = gait.ranges;
  const inRange = g.op('Max', [g.op('Min', [command, g.row('command_max', [vx[1], vy[1], vyaw[1]])]), g.row('command_min', [vx[0], vy[0], vyaw[0]])]);
  const clamped = gait.deadband === undefined ? inRange : deadband(g, inRange, gait.deadband);
  const activity = g.op('Min', [g.matmul(g.op('Abs', [clamped]), [[gait.activity.vx], [gait.activity.vy], [gait.activity.vyaw]], 'activity'), g.scalar('one', 1)]);
  const lifts = g.op('Relu', [g.pick([[[SIN, 1]], [[SIN, -1]]], 'sin_pm')]);
  const phase = g.op('Concat', [lifts, g.pick([[[SIN, 1]]], 'sin')], { axis: 1 });
  const stepping = g.op('Mul', [phase, activity]);
  const strides = g.op('Mul', [clamped, g.pick([[[COS, 1]]], 'cos')]);
  const features = g.op('Concat', [stepping, strides], { axis: 1 });

  const syn = new Synergies(p.signs);
  const m = Array.from({ length: 6 }, zeroRow);
  const row = (i: number): JointRow => m[i] ?? zeroRow();
  syn.crouch(row(0), 'left', gait.stepHeight);
  syn.crouch(row(1), 'right', gait.stepHeight);
  for (const side of SIDES) {
    const sign = side === 'left' ? -1 : 1;
    // Weight over the stance foot: the left swings (s > 0) → trunk to the right → feet to the left.
    syn.roll(row(2), side, gait.sway);
    syn.swing(row(3), side, sign * gait.stridePerVx);
    syn.roll(row(4), side, sign * gait.lateralPerVy);
    syn.yaw(row(5), side, sign * gait.yawPerVyaw);
  }
  const out = finish(g, features, scaled(m, p.actionScale), p);
  return serialise(g, out, { name, doc: `quackd ${name}: a phase-oscillator gait (generated by npm run make:policies, not trained); obs_layout quackd-gait-1`, params: { actionScale: p.actionScale, signs: p.signs, stance: p.stance, balance: p.balance, gait } });
}

/**
 * A kick, quackd-gait-1 (its phase runs once over duration_s). Features:
 *   F = [clip(ramp·(1 − c)/2, 0, 1), relu(−c), relu(−c)·relu(s), relu(−c)·relu(−s)]
 * M rows: both hip rolls toward the support foot (shift); kicking leg crouch (lift); kicking leg
 * swing back (2·windBack), then forward (2·swing) with the knee extending (2·kneeExtend).
 */
export function kickGraph(p: PolicyParams, side: Side, name: string): Uint8Array {
  const k = p.kick;
  const g = new GraphBuilder('obs', OBS_LEN['quackd-gait-1']);
  const hinges = g.op('Relu', [g.pick([[[COS, -1]], [[SIN, 1]], [[SIN, -1]]], 'hinge')]);
  const lift = g.matmul(hinges, [[1], [0], [0]], 'lift');
  const strokes = g.op('Mul', [g.matmul(hinges, [[0, 0], [1, 0], [0, 1]], 'stroke'), lift]);
  const shiftRaw = g.op('Add', [g.pick([[[COS, -k.shiftRamp / 2]]], 'shift'), g.scalar('shift_offset', k.shiftRamp / 2)]);
  const shift = g.op('Clip', [shiftRaw, g.scalar('zero', 0), g.scalar('one', 1)]);
  const features = g.op('Concat', [shift, lift, strokes], { axis: 1 });

  const syn = new Synergies(p.signs);
  const m = Array.from({ length: 4 }, zeroRow);
  const row = (i: number): JointRow => m[i] ?? zeroRow();
  // Kicking left, the weight goes onto the right foot: trunk to the right → both feet to the left.
  const toward = side === 'left' ? 1 : -1;
  syn.roll(row(0), 'left', toward * k.shift);
  syn.roll(row(0), 'right', toward * k.shift);
  syn.crouch(row(1), side, k.lift);
  syn.swing(row(2), side, -2 * k.windBack);
  syn.swing(row(3), side, 2 * k.swing);
  syn.kneeExtend(row(3), side, 2 * k.kneeExtend);
  const out = finish(g, features, scaled(m, p.actionScale), p);
  return serialise(g, out, { name, doc: `quackd ${name}: a scripted ${side}-foot kick as a function of its phase (generated by npm run make:policies, not trained); obs_layout quackd-gait-1`, params: { actionScale: p.actionScale, signs: p.signs, stance: p.stance, balance: p.balance, kick: k, side } });
}

/** Standing, microduck-51: the stance offset plus balance feedback, nothing else. */
export function standGraph(p: PolicyParams, name: string): Uint8Array {
  const g = new GraphBuilder('obs', OBS_LEN['microduck-51']);
  const balance = g.matmul(g.input, balanceMatrix(p, g.inputWidth), 'balance');
  const out = g.op('Add', [balance, g.row('stance', stanceRow(p))]);
  return serialise(g, out, { name, doc: `quackd ${name}: stand at home with balance feedback (generated by npm run make:policies, not trained); obs_layout microduck-51`, params: { actionScale: p.actionScale, signs: p.signs, stance: p.stance, balance: p.balance } });
}
