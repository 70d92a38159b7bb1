/*
 * Dynamixel Protocol 2.0 packets (ROBOTIS e-Manual, "Protocol 2.0"): header FF FF FD 00, id,
 * length (LE, instruction..CRC), instruction, parameters with byte stuffing, CRC-16 (poly 0x8005,
 * init 0, not reflected) over everything before it.
 */
#include "dynamixel.h"

#include <string.h>

uint16_t dxl_crc16(const uint8_t *data, size_t len) {
  uint16_t crc = 0;
  for (size_t i = 0; i < len; i++) {
    crc ^= (uint16_t)((uint16_t)data[i] << 8);
    for (int b = 0; b < 8; b++) crc = (crc & 0x8000u) ? (uint16_t)((crc << 1) ^ 0x8005u) : (uint16_t)(crc << 1);
  }
  return crc;
}

/* Appends params with byte stuffing: FF FF FD inside a packet becomes FF FF FD FD. */
static size_t packet(uint8_t instr, const uint8_t *params, size_t n, uint8_t *out, size_t cap) {
  static const uint8_t head[] = {0xFF, 0xFF, 0xFD, 0x00, DXL_BROADCAST};
  if (cap < 10u + 2u * n) return 0;
  memcpy(out, head, sizeof head);
  size_t o = 7;
  out[o++] = instr;
  for (size_t i = 0; i < n; i++) {
    out[o++] = params[i];
    if (o >= 3 && out[o - 3] == 0xFF && out[o - 2] == 0xFF && out[o - 1] == 0xFD) out[o++] = 0xFD;
  }
  size_t length = o - 7u + 2u; /* instruction + params + CRC */
  out[5] = (uint8_t)length;
  out[6] = (uint8_t)(length >> 8);
  uint16_t crc = dxl_crc16(out, o);
  out[o++] = (uint8_t)crc;
  out[o++] = (uint8_t)(crc >> 8);
  return o;
}

size_t dxl_sync_write(uint16_t addr, uint16_t width, const uint8_t *ids, size_t n, const uint8_t *data, uint8_t *out, size_t cap) {
  uint8_t params[4 + 14 * 5];
  size_t k = 0;
  if (n * (1u + width) + 4u > sizeof params) return 0;
  params[k++] = (uint8_t)addr;
  params[k++] = (uint8_t)(addr >> 8);
  params[k++] = (uint8_t)width;
  params[k++] = (uint8_t)(width >> 8);
  for (size_t i = 0; i < n; i++) {
    params[k++] = ids[i];
    memcpy(params + k, data + i * width, width);
    k += width;
  }
  return packet(0x83, params, k, out, cap);
}

size_t dxl_sync_read(uint16_t addr, uint16_t width, const uint8_t *ids, size_t n, uint8_t *out, size_t cap) {
  uint8_t params[4 + 32];
  if (n > 32) return 0;
  params[0] = (uint8_t)addr;
  params[1] = (uint8_t)(addr >> 8);
  params[2] = (uint8_t)width;
  params[3] = (uint8_t)(width >> 8);
  memcpy(params + 4, ids, n);
  return packet(0x82, params, 4 + n, out, cap);
}

bool dxl_parse_status(dxl_parser_t *p, uint8_t byte, dxl_status_t *out) {
  static const uint8_t head[] = {0xFF, 0xFF, 0xFD, 0x00};
  if (p->len < sizeof head) {
    /* Resynchronise on the header, byte by byte. */
    if (byte == head[p->len]) {
      p->buf[p->len++] = byte;
    } else if (p->len == 2 && byte == 0xFF) {
      /* FF FF FF: still two FFs of a header */
    } else {
      p->len = (byte == 0xFF) ? 1u : 0u;
      if (p->len == 1u) p->buf[0] = byte;
    }
    return false;
  }
  p->buf[p->len++] = byte;
  if (p->len == 7) {
    size_t length = (size_t)p->buf[5] | ((size_t)p->buf[6] << 8);
    p->want = 7u + length;
    /* instruction + error + 1..4 data bytes + CRC: only the status packets this HAL asks for */
    if (length < 5u || length > 8u) p->len = 0;
    return false;
  }
  if (p->len < 8 || p->len < p->want) return false;
  p->len = 0;
  uint16_t crc = (uint16_t)(p->buf[p->want - 2] | (p->buf[p->want - 1] << 8));
  if (p->buf[7] != 0x55 || dxl_crc16(p->buf, p->want - 2u) != crc) return false;
  out->id = p->buf[4];
  out->error = p->buf[8];
  out->n = (uint8_t)(p->want - DXL_STATUS_BYTES(0));
  out->value = 0;
  for (uint8_t b = 0; b < out->n; b++) out->value |= (uint32_t)p->buf[9 + b] << (8u * b);
  return true;
}
