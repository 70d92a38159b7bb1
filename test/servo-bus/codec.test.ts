/**
 * The servo-bus codecs against the vendors' published example packets. Each example names where
 * it is printed; the decoder half checks the same bytes come back apart, then the streaming
 * decoders are fed noise, torn packets and bad checksums and must find every good packet after.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DynamixelDecoder,
  crc16,
  dynamixelHardwareErrors,
  dynamixelPacket,
  dynamixelPing,
  dynamixelRead,
  dynamixelRefusal,
  dynamixelStatus,
  dynamixelSyncRead,
  dynamixelSyncWrite,
  dynamixelWrite,
} from '../../src/servo-bus/dynamixel.js';
import { FeetechDecoder, feetechAlarms, feetechPing, feetechRead, feetechStatus, feetechSyncRead, feetechSyncWrite, feetechWrite } from '../../src/servo-bus/feetech.js';
import { hex } from '../../src/servo-bus/packet.js';

const bytes = (s: string): Uint8Array => Uint8Array.from(s.split(' ').map((h) => Number.parseInt(h, 16)));
const le32 = (v: number): number[] => [v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff, v >>> 24];

/** ROBOTIS e-manual, "DYNAMIXEL Protocol 2.0" (emanual.robotis.com/docs/en/dxl/protocol2/), section 5 "Instruction Details" examples. */
const E_MANUAL_2 = 'ROBOTIS e-manual, Protocol 2.0';

describe('Dynamixel Protocol 2.0 codec', () => {
  it('CRC-16 is the ROBOTIS one: polynomial 0x8005, check value 0xFEE8 for "123456789"', () => {
    assert.equal(crc16(new TextEncoder().encode('123456789')), 0xfee8);
  });

  const instructions: readonly (readonly [string, Uint8Array, string])[] = [
    [`${E_MANUAL_2} 5.1 Ping: to ID 1`, dynamixelPing(1), 'FF FF FD 00 01 03 00 01 19 4E'],
    [`${E_MANUAL_2} 5.1 Ping: to everyone (broadcast)`, dynamixelPing(0xfe), 'FF FF FD 00 FE 03 00 01 31 42'],
    [`${E_MANUAL_2} 5.2 Read: Present Position (132, 4 bytes) of ID 1`, dynamixelRead(1, 132, 4), 'FF FF FD 00 01 07 00 02 84 00 04 00 1D 15'],
    [`${E_MANUAL_2} 5.3 Write: Goal Position (116) 512 to ID 1`, dynamixelWrite(1, 116, le32(512)), 'FF FF FD 00 01 09 00 03 74 00 00 02 00 00 CA 89'],
    [`${E_MANUAL_2} 5.11 Sync Read: Present Position of IDs 1 and 2`, dynamixelSyncRead([1, 2], 132, 4), 'FF FF FD 00 FE 09 00 82 84 00 04 00 01 02 CE FA'],
    [
      `${E_MANUAL_2} 5.12 Sync Write: Goal Position 150 to ID 1, 170 to ID 2`,
      dynamixelSyncWrite(116, 4, [
        [1, le32(150)],
        [2, le32(170)],
      ]),
      'FF FF FD 00 FE 11 00 83 74 00 04 00 01 96 00 00 00 02 AA 00 00 00 82 87',
    ],
  ];
  for (const [where, got, want] of instructions) {
    it(`encodes ${where}`, () => assert.equal(hex(got), want));
  }

  const statuses: readonly (readonly [string, string, number, number, string])[] = [
    [`${E_MANUAL_2} 5.1 Ping: ID 1 answers model 1030, firmware 0x26`, 'FF FF FD 00 01 07 00 55 00 06 04 26 65 5D', 1, 0, '06 04 26'],
    [`${E_MANUAL_2} 5.2 Read: ID 1's Present Position 166`, 'FF FF FD 00 01 08 00 55 00 A6 00 00 00 8C C0', 1, 0, 'A6 00 00 00'],
    [`${E_MANUAL_2} 5.3 Write: ID 1 acknowledges`, 'FF FF FD 00 01 04 00 55 00 A1 0C', 1, 0, ''],
    [`${E_MANUAL_2} 5.11 Sync Read: ID 2's Present Position 2079`, 'FF FF FD 00 02 08 00 55 00 1F 08 00 00 BA BE', 2, 0, '1F 08 00 00'],
  ];
  for (const [where, wire, id, error, data] of statuses) {
    it(`decodes ${where}, and encodes it back`, () => {
      const [p, ...rest] = new DynamixelDecoder().push(bytes(wire));
      assert.equal(rest.length, 0);
      assert.deepEqual({ id: p?.id, code: p?.code, error: p?.params[0], data: hex(p?.params.subarray(1) ?? new Uint8Array()) }, { id, code: 0x55, error, data });
      assert.equal(hex(dynamixelStatus(id, error, bytes(data === '' ? '00' : data).subarray(data === '' ? 1 : 0))), wire);
    });
  }

  it('stuffs FF FF FD inside a packet and takes it out again', () => {
    const data = [0xff, 0xff, 0xfd, 0x01, 0xff, 0xff, 0xfd];
    const wire = dynamixelWrite(1, 0x0200, data);
    // e-manual "Byte Stuffing": FF FF FD in the body travels as FF FF FD FD, and the length counts the stuffed bytes
    assert.match(hex(wire), /FF FF FD FD 01 FF FF FD FD/);
    assert.equal(wire[5], 1 + 2 + data.length + 2 + 2, 'instruction, address, data, two stuffed bytes, CRC');
    const [p] = new DynamixelDecoder().push(wire);
    assert.deepEqual([...(p?.params ?? [])], [0x00, 0x02, ...data]);
  });

  it('names the status error byte: bit 7 is the hardware alert, the rest why an instruction was refused', () => {
    assert.equal(dynamixelRefusal(0x00), undefined);
    assert.equal(dynamixelRefusal(0x04), 'data range error');
    assert.equal(dynamixelRefusal(0x87), 'access error');
    assert.deepEqual(dynamixelHardwareErrors(0x25), ['voltage', 'overheat', 'overload']);
  });
});

/**
 * Feetech's "Communication Protocol Manual" (FT-SCS, as Seeed hosts it:
 * files.seeedstudio.com/wiki/robotics/Actuator/feetech/Communication_Protocol_Manual.pdf). Its
 * frame is ROBOTIS Protocol 1.0's, so the ROBOTIS manuals' examples hold too; they fill in what
 * Feetech does not print (a one-byte read, a sync write).
 */
const FEETECH_MANUAL = 'Feetech Communication Protocol Manual';

describe('Feetech STS/SCS codec', () => {
  const instructions: readonly (readonly [string, Uint8Array, string])[] = [
    [`${FEETECH_MANUAL} PING: ID 1 (the RX-28 manual's 4-4 example 3 is the same bytes)`, feetechPing(1), 'FF FF 01 02 01 FB'],
    [`${FEETECH_MANUAL} 4.2 READ: ID 1's present position (0x38, 2 bytes)`, feetechRead(1, 0x38, 2), 'FF FF 01 04 02 38 02 BE'],
    ['ROBOTIS Protocol 1.0 e-manual, READ: internal temperature (0x2B, 1 byte) of ID 1', feetechRead(1, 0x2b, 1), 'FF FF 01 04 02 2B 01 CC'],
    [`${FEETECH_MANUAL} 4.3 WRITE example 3: ID 1 to every servo on the bus (broadcast, address 5)`, feetechWrite(0xfe, 0x05, [0x01]), 'FF FF FE 04 03 05 01 F4'],
    [`${FEETECH_MANUAL} 4.3 WRITE example 4: ID 1 to position 2048, time 0, speed 1000 (0x2A, 6 bytes)`, feetechWrite(1, 0x2a, [0x00, 0x08, 0x00, 0x00, 0xe8, 0x03]), 'FF FF 01 09 03 2A 00 08 00 00 E8 03 D5'],
    [
      'ROBOTIS Protocol 1.0 e-manual, SYNC WRITE: position and speed (0x1E, 4 bytes) to IDs 0–3',
      feetechSyncWrite(0x1e, 4, [
        [0, [0x10, 0x00, 0x50, 0x01]],
        [1, [0x20, 0x02, 0x60, 0x03]],
        [2, [0x30, 0x00, 0x70, 0x01]],
        [3, [0x20, 0x02, 0x80, 0x03]],
      ]),
      'FF FF FE 18 83 1E 04 00 10 00 50 01 01 20 02 60 03 02 30 00 70 01 03 20 02 80 03 12',
    ],
    // No vendor prints a SYNC READ packet: this is the frame FTServo_Python's syncReadTx builds (addr, len, ids).
    ['FTServo_Python syncReadTx: present position and speed (0x38, 4 bytes) of IDs 1 and 2', feetechSyncRead([1, 2], 0x38, 4), 'FF FF FE 06 82 38 04 01 02 3A'],
  ];
  for (const [where, got, want] of instructions) {
    it(`encodes ${where}`, () => assert.equal(hex(got), want));
  }

  const statuses: readonly (readonly [string, string, number, number, string])[] = [
    [`${FEETECH_MANUAL} PING, and 4.3 WRITE example 4: ID 1 answers, no error`, 'FF FF 01 02 00 FC', 1, 0, ''],
    [`${FEETECH_MANUAL} 4.2 READ: ID 1 at position 0x0518`, 'FF FF 01 04 00 18 05 DD', 1, 0, '18 05'],
    ['ROBOTIS Protocol 1.0 e-manual, READ: ID 1 at 32 °C', 'FF FF 01 03 00 20 DB', 1, 0, '20'],
  ];
  for (const [where, wire, id, error, data] of statuses) {
    it(`decodes ${where}, and encodes it back`, () => {
      const [p, ...rest] = new FeetechDecoder().push(bytes(wire));
      assert.equal(rest.length, 0);
      assert.deepEqual({ id: p?.id, error: p?.code, data: hex(p?.params ?? new Uint8Array()) }, { id, error, data });
      assert.equal(hex(feetechStatus(id, error, data === '' ? [] : bytes(data))), wire);
    });
  }

  it('names the status error bits as Feetech does', () => {
    assert.deepEqual(feetechAlarms(0), []);
    assert.deepEqual(feetechAlarms(0x24), ['overheat', 'overload']);
    assert.deepEqual(feetechAlarms(0x11), ['voltage', 'bit 4']);
  });
});

describe('the streaming decoders', () => {
  const cases = [
    { name: 'Feetech', decoder: () => new FeetechDecoder(), packet: (id: number) => feetechStatus(id, 0, [id, 0x08]) },
    { name: 'Dynamixel', decoder: () => new DynamixelDecoder(), packet: (id: number) => dynamixelStatus(id, 0, [id, 0x08, 0xff, 0xff, 0xfd]) },
  ];
  for (const c of cases) {
    it(`${c.name}: packets split at every byte come out whole`, () => {
      const wire = Buffer.concat([c.packet(1), c.packet(2), c.packet(3)]);
      const d = c.decoder();
      const ids = [...wire].flatMap((b) => d.push(Uint8Array.of(b)).map((p) => p.id));
      assert.deepEqual(ids, [1, 2, 3]);
      assert.deepEqual(d.counters, { ok: 3, checksum: 0, skipped: 0 });
    });

    it(`${c.name}: noise, a torn packet and a bad checksum are skipped, and the next header found`, () => {
      const bad = c.packet(5);
      bad[bad.length - 1] = (bad.at(-1) ?? 0) ^ 0x5a;
      const torn = c.packet(6).subarray(0, 7);
      const wire = Buffer.concat([Uint8Array.of(0x00, 0xff, 0x13), c.packet(1), bad, torn, c.packet(2), Uint8Array.of(0xff)]);
      const d = c.decoder();
      assert.deepEqual(
        d.push(wire).map((p) => p.id),
        [1, 2],
      );
      assert.equal(d.counters.ok, 2);
      assert.ok(d.counters.checksum >= 1, 'the bad packet is counted');
      assert.ok(d.counters.skipped > 0, 'the noise is counted');
      assert.ok(d.reset() <= 1, 'only a lone trailing FF is left waiting');
    });
  }

  it('Dynamixel: a header inside the data cannot start a packet, thanks to stuffing', () => {
    const p = dynamixelPacket(7, 0x55, [0x00, 0xff, 0xff, 0xfd, 0x00, 0x07, 0x03, 0x00]);
    assert.deepEqual(
      new DynamixelDecoder().push(p).map((x) => x.id),
      [7],
    );
  });
});
