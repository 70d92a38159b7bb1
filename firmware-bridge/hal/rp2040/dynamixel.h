/*
 * Just enough Dynamixel Protocol 2.0 for the Microduck's XL330 servos on one half-duplex bus:
 * sync write (torque enable, goal position) and sync read (present position), packet building
 * with byte stuffing and CRC, and a byte-at-a-time status parser. No I/O: the HAL moves bytes.
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

typedef struct {
  uint8_t buf[32];
  size_t len;
  size_t want; /* total packet length once the length field is known */
} dxl_parser_t;

/* Feed one byte; returns true when a status packet with a good CRC and 4 data bytes completed. */
bool dxl_parse_status4(dxl_parser_t *p, uint8_t byte, uint8_t *id, int32_t *value);

#endif
