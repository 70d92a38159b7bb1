/**
 * The one file that touches @mujoco/mujoco (DeepMind's WebAssembly MuJoCo, the single-threaded
 * build: the MT build needs `navigator` and fails in Node). Its typings declare most fields `any`,
 * so this wraps the few calls the twin needs in typed functions and checks every array at the
 * boundary. Everything here is synchronous after `loadMujoco()`, and nothing assumes the main
 * thread: a worker loads its own copy of the module.
 */
import loadModule from '@mujoco/mujoco';
import type { MainModule, MjData, MjModel, MjSpec } from '@mujoco/mujoco';
import { dirname } from 'node:path';
import { modelFiles } from './model-files.js';

export type MjKind = 'body' | 'joint' | 'geom' | 'site' | 'camera' | 'actuator' | 'sensor' | 'key';

/**
 * A model that failed to compile, with what MuJoCo said on one line: for quackd's own XML a bug;
 * for a user's model file (compileFile) the reason it is refused.
 */
export class MujocoModelError extends Error {
  readonly kind = 'mujoco-model' as const;
}

/** MuJoCo's enum values the twin compares against (mjtGeom, mjtJoint, mjtSensor, mjtTrn, mjtBias). */
export const MJ = {
  geom: { plane: 0, sphere: 2, capsule: 3, box: 6 },
  joint: { free: 0, hinge: 3 },
  sensor: { accelerometer: 1, gyro: 3, framequat: 27 },
  obj: { body: 1, xbody: 2, site: 6 },
  trn: { joint: 0 },
  bias: { affine: 1 },
} as const;

/** A room for compileFile to put around a user's model: everything in one frame of its worldbody. */
export interface AttachedRoom {
  /** The room's MJCF, told whether the model has a floor (a plane) of its own. */
  readonly mjcf: (hasFloor: boolean) => string;
  readonly frame: string;
  /** What the room's names start with once attached, so they cannot clash with the model's. */
  readonly prefix: string;
}

/**
 * One compiled model and its state. Array getters return live views into WebAssembly memory,
 * fetched afresh on every call: a view kept across a call that grows the heap would be detached.
 */
export interface MjSim {
  readonly timestep: number;
  readonly nq: number;
  readonly nv: number;
  readonly nu: number;
  readonly njnt: number;
  readonly ngeom: number;
  readonly nsensor: number;
  /** -1 when there is no such element. */
  id(kind: MjKind, name: string): number;
  name(kind: MjKind, id: number): string;
  time(): number;
  qpos(): Float64Array;
  qvel(): Float64Array;
  ctrl(): Float64Array;
  sensordata(): Float64Array;
  /** World position of each body, 3 per body. */
  xpos(): Float64Array;
  /** World orientation of each body, w x y z per body. */
  xquat(): Float64Array;
  geomXpos(): Float64Array;
  /** Geom orientations as row-major 3×3 matrices, 9 per geom. */
  geomXmat(): Float64Array;
  siteXpos(): Float64Array;
  siteXmat(): Float64Array;
  /** Body orientations as row-major 3×3 matrices, 9 per body. */
  xmat(): Float64Array;
  /** Each body's velocity at its subtree's centre of mass, world frame: angular then linear, 6 per body (as of the last step's start, as sensors are). */
  cvel(): Float64Array;
  camXpos(): Float64Array;
  camXmat(): Float64Array;
  /** Joint limits, 2 per joint (min, max). */
  jntRange(): Float64Array;
  jntQposAdr(): Int32Array;
  jntDofAdr(): Int32Array;
  /** mjtJoint per joint (MJ.joint). */
  jntType(): Int32Array;
  jntBody(): Int32Array;
  /** For each actuator, the joint it drives (first of its 2 transmission ids), -1 unless a joint drives it. */
  actuatorJoint(i: number): number;
  /** mjtBias per actuator: a position servo's is affine (MJ.bias). */
  actuatorBiasType(): Int32Array;
  /** Gain and bias parameters, 10 per actuator: a position servo has gain kp and bias (0, −kp, −kv). */
  actuatorGainPrm(): Float64Array;
  actuatorBiasPrm(): Float64Array;
  sensorAdr(): Int32Array;
  /** mjtSensor per sensor (MJ.sensor), what it is attached to (mjtObj, MJ.obj) and that object's id. */
  sensorType(): Int32Array;
  sensorObjType(): Int32Array;
  sensorObjId(): Int32Array;
  siteBody(): Int32Array;
  bodyMass(): Float64Array;
  geomSize(): Float64Array;
  geomBody(): Int32Array;
  /** mjtGeom per geom (MJ.geom). */
  geomType(): Int32Array;
  /** Each geom's bounding box in its own frame: centre then half sizes, 6 per geom. */
  geomAabb(): Float64Array;
  /** Whether each geom takes part in contacts at all (contype or conaffinity set). */
  geomCollides(g: number): boolean;
  /** The top-level body (child of the world) each body hangs under. */
  bodyRoot(): Int32Array;
  /** The body each body is welded to: its nearest ancestor (or itself) that a joint moves. */
  bodyWeld(): Int32Array;
  /** Number of contacts after the last step or forward. */
  ncon(): number;
  /** The geoms of each contact after the last step or forward, two a contact (geom1, geom2). */
  contactGeoms(): number[];
  resetToKey(key: number): void;
  /** The model's default state (qpos0, zero velocities and controls). */
  reset(): void;
  forward(): void;
  step(n: number): void;
  /** Frees the WebAssembly memory of the model and data; the sim is unusable after. */
  close(): void;
}

export interface Mujoco {
  compile(xml: string): MjSim;
  /**
   * A user's model file (absolute path) with `room` attached to its world: the file and what it
   * refers to (model-files.ts) are copied into MuJoCo's in-memory filesystem for the compile and
   * removed after. ModelFileError when the file cannot be read, MujocoModelError when MuJoCo refuses it.
   */
  compileFile(path: string, room: AttachedRoom): MjSim;
}

let loading: Promise<Mujoco> | undefined;

/** Loads the WebAssembly module once per thread (about 150 ms) and hands out compilers. */
export function loadMujoco(): Promise<Mujoco> {
  loading ??= loadModule().then((mj): Mujoco => ({ compile: (xml) => compile(mj, xml), compileFile: (path, room) => compileFile(mj, path, room) }));
  return loading;
}

function f64(value: unknown, what: string): Float64Array {
  if (value instanceof Float64Array) return value;
  throw new TypeError(`mujoco: ${what} is not a Float64Array`);
}

function i32(value: unknown, what: string): Int32Array {
  if (value instanceof Int32Array) return value;
  throw new TypeError(`mujoco: ${what} is not an Int32Array`);
}

function compile(mj: MainModule, xml: string): MjSim {
  let model: MjModel;
  try {
    model = mj.MjModel.from_xml_string(xml);
  } catch (err) {
    throw new MujocoModelError(`mujoco could not compile the model: ${err instanceof Error ? err.message.trim() : String(err)}`);
  }
  return simOf(mj, model);
}

/** MuJoCo's multi-line message on one line, without the binding's own preamble. */
function said(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text
    .replace(/^MuJoCo Error: (Could not create Spec from XML string: )?(Error: )?/, '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .join(', ');
}

function hasPlane(mj: MainModule, spec: MjSpec): boolean {
  for (let el = mj.mjs_firstElement(spec, mj.mjtObj.mjOBJ_GEOM); el !== undefined; el = mj.mjs_nextElement(spec, el)) {
    if (mj.mjs_asGeom(el)?.type.value === MJ.geom.plane) return true;
  }
  return false;
}

function compileFile(mj: MainModule, path: string, room: AttachedRoom): MjSim {
  const files = modelFiles(path);
  const main = files[0];
  if (main === undefined) throw new MujocoModelError(`${path}: nothing to compile`);
  const written: string[] = [];
  const specs: MjSpec[] = [];
  try {
    for (const f of files) {
      mj.FS.mkdirTree(dirname(f.path), 0o755);
      mj.FS.writeFile(f.path, f.bytes);
      written.push(f.path);
    }
    // Relative includes and assets resolve against the working directory: the model's folder.
    mj.FS.chdir(dirname(main.path));
    const spec = mj.parseXMLString(Buffer.from(main.bytes).toString('utf8'));
    specs.push(spec);
    const roomSpec = mj.parseXMLString(room.mjcf(hasPlane(mj, spec)));
    specs.push(roomSpec);
    const world = mj.mjs_findBody(spec, 'world');
    const frame = mj.mjs_findFrame(roomSpec, room.frame);
    if (world === undefined || frame === undefined || mj.mjs_attach(world.element, frame.element, room.prefix, '') === undefined) {
      throw new Error(`the living room could not be attached (${mj.mjs_getError(spec)})`);
    }
    return simOf(mj, mj.mj_compile(spec));
  } catch (err) {
    throw new MujocoModelError(`${main.path} does not compile: ${said(err)}`);
  } finally {
    mj.FS.chdir('/');
    for (const f of written) mj.FS.unlink(f);
    // The user's spec holds the attached copy of the room's: it goes first.
    for (const spec of specs) spec.delete();
  }
}

function simOf(mj: MainModule, model: MjModel): MjSim {
  const data: MjData = new mj.MjData(model);
  const kinds: Record<MjKind, number> = {
    body: mj.mjtObj.mjOBJ_BODY.value,
    joint: mj.mjtObj.mjOBJ_JOINT.value,
    geom: mj.mjtObj.mjOBJ_GEOM.value,
    site: mj.mjtObj.mjOBJ_SITE.value,
    camera: mj.mjtObj.mjOBJ_CAMERA.value,
    actuator: mj.mjtObj.mjOBJ_ACTUATOR.value,
    sensor: mj.mjtObj.mjOBJ_SENSOR.value,
    key: mj.mjtObj.mjOBJ_KEY.value,
  };
  // Transmission ids are fixed once compiled: read them once rather than on every query.
  const trnid = i32(model.actuator_trnid, 'actuator_trnid').slice();
  const trntype = i32(model.actuator_trntype, 'actuator_trntype').slice();
  const contype = i32(model.geom_contype, 'geom_contype').slice();
  const conaffinity = i32(model.geom_conaffinity, 'geom_conaffinity').slice();
  let closed = false;
  return {
    timestep: model.opt.timestep,
    nq: model.nq,
    nv: model.nv,
    nu: model.nu,
    njnt: model.njnt,
    ngeom: model.ngeom,
    nsensor: model.nsensor,
    id: (kind, name) => mj.mj_name2id(model, kinds[kind], name),
    name: (kind, id) => mj.mj_id2name(model, kinds[kind], id),
    time: () => data.time,
    qpos: () => f64(data.qpos, 'qpos'),
    qvel: () => f64(data.qvel, 'qvel'),
    ctrl: () => f64(data.ctrl, 'ctrl'),
    sensordata: () => f64(data.sensordata, 'sensordata'),
    xpos: () => f64(data.xpos, 'xpos'),
    xquat: () => f64(data.xquat, 'xquat'),
    geomXpos: () => f64(data.geom_xpos, 'geom_xpos'),
    geomXmat: () => f64(data.geom_xmat, 'geom_xmat'),
    siteXpos: () => f64(data.site_xpos, 'site_xpos'),
    siteXmat: () => f64(data.site_xmat, 'site_xmat'),
    xmat: () => f64(data.xmat, 'xmat'),
    cvel: () => f64(data.cvel, 'cvel'),
    camXpos: () => f64(data.cam_xpos, 'cam_xpos'),
    camXmat: () => f64(data.cam_xmat, 'cam_xmat'),
    jntRange: () => f64(model.jnt_range, 'jnt_range'),
    jntQposAdr: () => i32(model.jnt_qposadr, 'jnt_qposadr'),
    jntDofAdr: () => i32(model.jnt_dofadr, 'jnt_dofadr'),
    jntType: () => i32(model.jnt_type, 'jnt_type'),
    jntBody: () => i32(model.jnt_bodyid, 'jnt_bodyid'),
    actuatorJoint: (i) => (trntype[i] === MJ.trn.joint ? (trnid[2 * i] ?? -1) : -1),
    actuatorBiasType: () => i32(model.actuator_biastype, 'actuator_biastype'),
    actuatorGainPrm: () => f64(model.actuator_gainprm, 'actuator_gainprm'),
    actuatorBiasPrm: () => f64(model.actuator_biasprm, 'actuator_biasprm'),
    sensorAdr: () => i32(model.sensor_adr, 'sensor_adr'),
    sensorType: () => i32(model.sensor_type, 'sensor_type'),
    sensorObjType: () => i32(model.sensor_objtype, 'sensor_objtype'),
    sensorObjId: () => i32(model.sensor_objid, 'sensor_objid'),
    siteBody: () => i32(model.site_bodyid, 'site_bodyid'),
    bodyMass: () => f64(model.body_mass, 'body_mass'),
    geomSize: () => f64(model.geom_size, 'geom_size'),
    geomBody: () => i32(model.geom_bodyid, 'geom_bodyid'),
    geomType: () => i32(model.geom_type, 'geom_type'),
    geomAabb: () => f64(model.geom_aabb, 'geom_aabb'),
    geomCollides: (g) => (contype[g] ?? 0) !== 0 || (conaffinity[g] ?? 0) !== 0,
    bodyRoot: () => i32(model.body_rootid, 'body_rootid'),
    bodyWeld: () => i32(model.body_weldid, 'body_weldid'),
    ncon: () => data.ncon,
    contactGeoms: () => {
      const out: number[] = [];
      const n = data.ncon;
      if (n === 0) return out;
      // Each handle embind gives is a copy in WebAssembly memory the caller must free.
      const contacts = data.contact;
      try {
        for (let i = 0; i < n; i++) {
          const c = contacts.get(i);
          if (c === undefined) continue;
          out.push(c.geom1, c.geom2);
          c.delete();
        }
      } finally {
        contacts.delete();
      }
      return out;
    },
    resetToKey: (key) => mj.mj_resetDataKeyframe(model, data, key),
    reset: () => mj.mj_resetData(model, data),
    forward: () => mj.mj_forward(model, data),
    step: (n) => {
      for (let i = 0; i < n; i++) mj.mj_step(model, data);
    },
    close: () => {
      if (closed) return;
      closed = true;
      data.delete();
      model.delete();
    },
  };
}
