/**
 * A look at every servo of a duck's joint table from the command line (`quackd calibrate`,
 * `quackd health`), on the main thread as `bus scan` does: no control loop runs. One servo at a
 * time, so a silent servo is named and does not hide the others. Looking
 * only reads; torqueOff() is the one write there is, and it is a stop: nothing here writes a
 * goal or switches torque on, so nothing moves.
 */
import { SerialLink } from '../../../bridge/serial.js';
import type { LowLatency } from '../../../bridge/low-latency.js';
import { ServoBus, type ServoReply } from '../../../servo-bus/bus.js';
import { BusLostError, ServoBusError, ServoGarbledError, ServoRefusedError, ServoTimeoutError } from '../../../servo-bus/errors.js';
import { decodeRegister, feetechModelFromBytes, modelByName, modelByNumber, type Register, type ServoModel } from '../../../servo-bus/models.js';
import type { ProtocolName } from '../../../servo-bus/packet.js';
import { protocolNamed } from '../../../servo-bus/protocol.js';
import type { TorqueReadBack } from './channel.js';
import { BUS_SERVO_MODEL, servoLabel, type JointRow } from './joint-table.js';
import { DID_NOT_ANSWER, type ServoLook } from './servo-look.js';

export type { ServoLook } from './servo-look.js';

export interface SurveyLink {
  readonly port: string;
  readonly baud: number;
  /** Silence before a servo is called silent, ms (one retry follows). */
  readonly timeoutMs: number;
}

/** Why a servo's read failed, in a few words: a lost link is not the servo's and is thrown on. */
function problemOf(err: unknown): string {
  if (err instanceof ServoTimeoutError) return DID_NOT_ANSWER;
  // Two servos on one id answer at once and garble each other: a builder's common slip, so it is said here.
  if (err instanceof ServoGarbledError) return 'answered garbled (bad checksum or cut short: a noisy cable, or another servo on the same id)';
  if (err instanceof ServoRefusedError) return `refused a read: ${err.reason}`;
  throw err;
}

export class ServoSurvey {
  private readonly model: ServoModel;

  private constructor(
    readonly protocol: ProtocolName,
    readonly link: SurveyLink,
    private readonly bus: ServoBus,
    private readonly serial: SerialLink,
  ) {
    this.model = modelByName(BUS_SERVO_MODEL[protocol]) as ServoModel;
  }

  /** Opens the port (a PortError when it cannot: missing, held by another program, no permission). */
  static async open(protocol: ProtocolName, link: SurveyLink): Promise<ServoSurvey> {
    const bus = new ServoBus({ protocol: protocolNamed(protocol), baud: link.baud, timeoutMs: link.timeoutMs, retries: 1 });
    try {
      return new ServoSurvey(protocol, link, bus, await SerialLink.open(bus, { path: link.port, baud: link.baud, reconnect: false }));
    } catch (err) {
      bus.close();
      throw err;
    }
  }

  /** What the port's driver said when asked for low latency (src/bridge/low-latency.ts). */
  get lowLatency(): LowLatency | undefined {
    return this.serial.lowLatency;
  }

  /** Every joint's servo, in the table's order. Throws only when the link is lost. */
  async look(joints: readonly JointRow[]): Promise<ServoLook[]> {
    const looks: ServoLook[] = [];
    for (const j of joints) looks.push(await this.lookAt(j));
    return looks;
  }

  /**
   * Torque off on every joint's servo in one sync write, then read back from each: the one write
   * a survey makes (a stop; a standing duck goes limp).
   */
  async torqueOff(joints: readonly JointRow[]): Promise<TorqueReadBack> {
    const r = this.model.registers.torqueEnable;
    await this.bus.syncWrite(r.address, new Map(joints.map((j) => [j.id, [0]])));
    const stuck: string[] = [];
    const silent: string[] = [];
    for (const j of joints) {
      try {
        const reply = await this.bus.read(j.id, r.address, 1);
        if ((reply.data[0] ?? 0) !== 0) stuck.push(servoLabel(j));
      } catch (err) {
        if (err instanceof BusLostError || !(err instanceof ServoBusError)) throw err;
        silent.push(servoLabel(j));
      }
    }
    return { asked: false, stuck, silent };
  }

  async close(): Promise<void> {
    this.bus.close();
    await this.serial.close();
  }

  /**
   * One read a servo, from its model number through its temperature (64 bytes on an STS, 147 on
   * an X series): a retried read's late duplicate then carries this servo's id and is ignored by
   * the next servo's read, where with a read a register it could answer the next register's.
   */
  private async lookAt(joint: JointRow): Promise<ServoLook> {
    const r = this.model.registers;
    const wanted = [r.modelNumber, r.torqueEnable, r.presentPosition, r.presentVoltage, r.presentTemperature, r.temperatureLimit, r.maxVoltageLimit, r.minVoltageLimit];
    const start = Math.min(...wanted.map((w) => w.address));
    const length = Math.max(...wanted.map((w) => w.address + w.size)) - start;
    let reply: ServoReply;
    try {
      reply = await this.bus.read(joint.id, start, length);
    } catch (err) {
      return { joint, problem: problemOf(err), expected: false, alarms: [] };
    }
    const alarms = reply.alarms;
    if (reply.data.length !== length) return { joint, problem: `answered ${reply.data.length} bytes where ${length} were asked`, expected: false, alarms };
    const at = (reg: Register): Uint8Array => reply.data.subarray(reg.address - start, reg.address - start + reg.size);
    const value = (reg: Register): number => decodeRegister(reg, at(reg), this.model.byteOrder);
    const m = at(r.modelNumber);
    const found = this.protocol === 'feetech' ? feetechModelFromBytes(m[0] ?? 0, m[1] ?? 0) : { number: value(r.modelNumber), model: modelByNumber('dynamixel', value(r.modelNumber)) };
    const model = { number: found.number, name: found.model?.name };
    // Another model's registers would be misread as this one's: it is named, not read further.
    if (model.name !== this.model.name) return { joint, model, expected: false, alarms };
    return {
      joint,
      model,
      expected: true,
      torque: value(r.torqueEnable) !== 0,
      servoRad: (value(r.presentPosition) - this.model.countsPerTurn / 2) * r.presentPosition.unit,
      voltage: value(r.presentVoltage) * r.presentVoltage.unit,
      temperature: value(r.presentTemperature) * r.presentTemperature.unit,
      limits: { minVoltage: value(r.minVoltageLimit) * r.minVoltageLimit.unit, maxVoltage: value(r.maxVoltageLimit) * r.maxVoltageLimit.unit, temperature: value(r.temperatureLimit) * r.temperatureLimit.unit },
      alarms,
    };
  }
}
