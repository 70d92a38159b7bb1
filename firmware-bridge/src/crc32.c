/*
 * Bitwise CRC-32 without a table: 1 KiB of RAM matters more than speed on the microcontroller,
 * and frames are at most ~1 KiB.
 */
#include "crc32.h"

uint32_t crc32_ieee(const uint8_t *data, size_t len) {
  uint32_t crc = 0xFFFFFFFFu;
  for (size_t i = 0; i < len; i++) {
    crc ^= data[i];
    for (int bit = 0; bit < 8; bit++) {
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
  }
  return crc ^ 0xFFFFFFFFu;
}
