/**
 * The one file that touches @mujoco/mujoco (DeepMind's WebAssembly MuJoCo, the single-threaded
 * build: the MT build needs `navigator` and fails in Node). Its typings declare most fields `any`,
 * so this wraps the few calls the twin needs in typed functions and checks every array at the
 * boundary. Everything here is synchronous after `loadMujoco()`, and nothing assumes the main
 * thread: a worker loads its own copy of the module.
 */
import loadModule from '@mujoco/mujoco';
import type { MainModule, MjData, MjModel } from '@mujoco/mujoco';

export type MjKind = 'body' | 'joint' | 'geom' | 'site' | 'actuator' | 'sensor' | 'key';

/** A model that failed to compile: the XML is ours, so this is a bug, but say what MuJoCo said. */
export class MujocoModelError extends Error {
  readonly kind = 'mujoco-model' as const;
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
  /** Joint limits, 2 per joint (min, max). */
  jntRange(): Float64Array;
  jntQposAdr(): Int32Array;
  jntDofAdr(): Int32Array;
  /** For each actuator, the joint it drives (first of its 2 transmission ids). */
  actuatorJoint(i: number): number;
  sensorAdr(): Int32Array;
  bodyMass(): Float64Array;
  geomSize(): Float64Array;
  geomBody(): Int32Array;
  /** mjtGeom per geom: 2 sphere, 3 capsule, 6 box … */
  geomType(): Int32Array;
  /** The top-level body (child of the world) each body hangs under. */
  bodyRoot(): Int32Array;
  /** Number of contacts after the last step or forward. */
  ncon(): number;
  resetToKey(key: number): void;
  forward(): void;
  step(n: number): void;
  /** Frees the WebAssembly memory of the model and data; the sim is unusable after. */
  close(): void;
}

export interface Mujoco {
  compile(xml: string): MjSim;
}

let loading: Promise<Mujoco> | undefined;

/** Loads the WebAssembly module once per thread (about 150 ms) and hands out compilers. */
export function loadMujoco(): Promise<Mujoco> {
  loading ??= loadModule().then((mj): Mujoco => ({ compile: (xml) => compile(mj, xml) }));
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
  const data: MjData = new mj.MjData(model);
  const kinds: Record<MjKind, number> = {
    body: mj.mjtObj.mjOBJ_BODY.value,
    joint: mj.mjtObj.mjOBJ_JOINT.value,
    geom: mj.mjtObj.mjOBJ_GEOM.value,
    site: mj.mjtObj.mjOBJ_SITE.value,
    actuator: mj.mjtObj.mjOBJ_ACTUATOR.value,
    sensor: mj.mjtObj.mjOBJ_SENSOR.value,
    key: mj.mjtObj.mjOBJ_KEY.value,
  };
  // Transmission ids are fixed once compiled: read them once rather than on every query.
  const trnid = i32(model.actuator_trnid, 'actuator_trnid').slice();
  let closed = false;
  return {
    timestep: model.opt.timestep,
    nq: model.nq,
    nv: model.nv,
    nu: model.nu,
    njnt: model.njnt,
    ngeom: model.ngeom,
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
    jntRange: () => f64(model.jnt_range, 'jnt_range'),
    jntQposAdr: () => i32(model.jnt_qposadr, 'jnt_qposadr'),
    jntDofAdr: () => i32(model.jnt_dofadr, 'jnt_dofadr'),
    actuatorJoint: (i) => trnid[2 * i] ?? -1,
    sensorAdr: () => i32(model.sensor_adr, 'sensor_adr'),
    bodyMass: () => f64(model.body_mass, 'body_mass'),
    geomSize: () => f64(model.geom_size, 'geom_size'),
    geomBody: () => i32(model.geom_bodyid, 'geom_bodyid'),
    geomType: () => i32(model.geom_type, 'geom_type'),
    bodyRoot: () => i32(model.body_rootid, 'body_rootid'),
    ncon: () => data.ncon,
    resetToKey: (key) => mj.mj_resetDataKeyframe(model, data, key),
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
