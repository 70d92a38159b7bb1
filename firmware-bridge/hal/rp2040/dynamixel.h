/*
 * Just enough Dynamixel Protocol 2.0 for the Microduck's XL330 servos on one half-duplex bus:
 * sync write (torque enable, goal position) and sync read (torque enable, present position),
 * packet building with byte stuffing and CRC, and a byte-at-a-time status parser. No I/O: the
 * HAL moves bytes (and bus.h says when).
 */
#ifndef QD_DYNAMIXEL_H
#define QD_DYNAMIXEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DXL_BROADCAST 0xFEu
#define DXL_ADDR_TORQUE_ENABLE 64u
#define DXL_ADDR_GOAL_POSITION 116u
#define DXL_ADDR_PRESENT_POSITION 132u
#define DXL_MAX_PACKET 256u

uint16_t dxl_crc16(const uint8_t *data, size_t len);

/* Sync write `width` bytes per id at `addr`; data holds n*width little-endian bytes. Returns the packet length, 0 if too big. */
size_t dxl_sync_write(uint16_t addr, uint16_t width, const uint8_t *ids, size_t n, const uint8_t *data, uint8_t *out, size_t cap);
/* Sync read `width` bytes at `addr` from each id; the servos answer one status packet each. */
size_t dxl_sync_read(uint16_t addr, uint16_t width, const uint8_t *ids, size_t n, uint8_t *out, size_t cap);

/* A status packet with n data bytes: header 4, id, length 2, instruction, error, data, CRC 2. */
#define DXL_STATUS_BYTES(n) (11u + (n))

typedef struct {
  uint8_t buf[32];
  size_t len;
  size_t want; /* total packet length once the length field is known */
} dxl_parser_t;

typedef struct {
  uint8_t id;
  uint8_t error; /* bit 7: hardware alert; bits 0-6: why the instruction failed */
  uint8_t n;     /* data bytes: 1 (torque enable) or 4 (present position) */
  uint32_t value; /* the data, little-endian */
} dxl_status_t;

/*
 * Feed one byte; returns true when a status packet with a good CRC and 1..4 data bytes completed.
 * Anything else (an instruction packet echoed back, noise, a bad CRC) is skipped up to the next
 * header.
 */
bool dxl_parse_status(dxl_parser_t *p, uint8_t byte, dxl_status_t *out);

#endif
