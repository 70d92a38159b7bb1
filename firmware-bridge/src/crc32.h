/*
 * CRC-32 (IEEE 802.3, reflected, poly 0xEDB88320, init/xorout 0xFFFFFFFF): the per-frame check.
 * The same function as zlib's crc32; check value for "123456789" is 0xCBF43926.
 */
#ifndef QD_CRC32_H
#define QD_CRC32_H

#include <stddef.h>
#include <stdint.h>

uint32_t crc32_ieee(const uint8_t *data, size_t len);

#endif
