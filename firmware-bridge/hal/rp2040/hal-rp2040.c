/*
 * hal.h on an RP2040 with the pico-sdk: XL330 servos over Dynamixel 2.0 on UART1, foot switches
 * on GPIO, battery on ADC0, a buzzer for quack. The host link's transmit side is a ring drained
 * by the main loop as the UART FIFO has room, so the loop (and the watchdog in it) never blocks
 * on a host that stopped reading. No IMU driver yet: the IMU fields report level and still.
 */
#include <math.h>
#include <string.h>

#include "../../src/duck.h"
#include "../../src/hal.h"
#include "board.h"
#include "dynamixel.h"
#include "hardware/adc.h"
#include "hardware/gpio.h"
#include "hardware/uart.h"
#include "pico/time.h"
#include "rp2040.h"

#define TX_RING 4096u
#define RAD_PER_TICK (6.283185307f / 4096.0f)

/* Dynamixel ids in policy order: left leg 20-24, neck/head 30-33, right leg 10-14. */
static const uint8_t ids[DUCK_JOINTS] = {20, 21, 22, 23, 24, 30, 31, 32, 33, 10, 11, 12, 13, 14};

static uint8_t tx[TX_RING];
static size_t tx_head, tx_len;
static float pos[DUCK_JOINTS], vel[DUCK_JOINTS];
static uint32_t pos_ms[DUCK_JOINTS];
static dxl_parser_t parser;
static uint32_t next_read;
static uint32_t quack_until;

static void bus_send(const uint8_t *bytes, size_t n) {
  gpio_put(BUS_DIR_PIN, 1);
  for (size_t i = 0; i < n; i++) uart_putc_raw(uart1, (char)bytes[i]);
  uart_tx_wait_blocking(uart1); /* ~0.2 ms at 1 Mbaud: then release the bus for the replies */
  gpio_put(BUS_DIR_PIN, 0);
}

void rp2040_hal_init(void) {
  uart_init(uart0, LINK_BAUD);
  gpio_set_function(LINK_TX_PIN, GPIO_FUNC_UART);
  gpio_set_function(LINK_RX_PIN, GPIO_FUNC_UART);
  uart_init(uart1, BUS_BAUD);
  gpio_set_function(BUS_TX_PIN, GPIO_FUNC_UART);
  gpio_set_function(BUS_RX_PIN, GPIO_FUNC_UART);
  gpio_init(BUS_DIR_PIN);
  gpio_set_dir(BUS_DIR_PIN, GPIO_OUT);
  gpio_put(BUS_DIR_PIN, 0);
  const uint pins[] = {FOOT_LEFT_PIN, FOOT_RIGHT_PIN};
  for (size_t i = 0; i < 2; i++) {
    gpio_init(pins[i]);
    gpio_set_dir(pins[i], GPIO_IN);
    gpio_pull_up(pins[i]);
  }
  gpio_init(BUZZER_PIN);
  gpio_set_dir(BUZZER_PIN, GPIO_OUT);
  adc_init();
  adc_gpio_init(BATTERY_ADC_PIN);
  adc_select_input(BATTERY_ADC_INPUT);
  memcpy(pos, duck_home, sizeof pos);
}

size_t rp2040_link_read(uint8_t *buf, size_t cap) {
  size_t n = 0;
  while (n < cap && uart_is_readable(uart0)) buf[n++] = (uint8_t)uart_getc(uart0);
  return n;
}

void rp2040_service(uint32_t now) {
  while (tx_len > 0 && uart_is_writable(uart0)) {
    uart_putc_raw(uart0, (char)tx[tx_head]);
    tx_head = (tx_head + 1u) % TX_RING;
    tx_len--;
  }
  while (uart_is_readable(uart1)) {
    uint8_t id = 0;
    int32_t raw = 0;
    if (!dxl_parse_status4(&parser, (uint8_t)uart_getc(uart1), &id, &raw)) continue;
    for (int i = 0; i < DUCK_JOINTS; i++) {
      if (ids[i] != id) continue;
      float p = (float)(raw - 2048) * RAD_PER_TICK;
      uint32_t dt = now - pos_ms[i];
      vel[i] = dt > 0 && dt < 1000u ? (p - pos[i]) * 1000.0f / (float)dt : 0.0f;
      pos[i] = p;
      pos_ms[i] = now;
    }
  }
  if ((int32_t)(now - next_read) >= 0) {
    uint8_t pkt[DXL_MAX_PACKET];
    size_t n = dxl_sync_read(DXL_ADDR_PRESENT_POSITION, 4, ids, DUCK_JOINTS, pkt, sizeof pkt);
    bus_send(pkt, n);
    next_read = now + READ_PERIOD_MS;
  }
  gpio_put(BUZZER_PIN, (int32_t)(now - quack_until) < 0 && ((now / 2u) & 1u));
}

bool hal_write(const uint8_t *bytes, size_t len) {
  if (len > TX_RING - tx_len) return false;
  for (size_t i = 0; i < len; i++) tx[(tx_head + tx_len + i) % TX_RING] = bytes[i];
  tx_len += len;
  return true;
}

void hal_set_torque(bool on) {
  uint8_t data[DUCK_JOINTS];
  uint8_t pkt[DXL_MAX_PACKET];
  memset(data, on ? 1 : 0, sizeof data);
  bus_send(pkt, dxl_sync_write(DXL_ADDR_TORQUE_ENABLE, 1, ids, DUCK_JOINTS, data, pkt, sizeof pkt));
}

void hal_set_targets(const float p[DUCK_JOINTS]) {
  uint8_t data[DUCK_JOINTS * 4];
  uint8_t pkt[DXL_MAX_PACKET];
  for (int i = 0; i < DUCK_JOINTS; i++) {
    int32_t raw = (int32_t)lroundf(p[i] / RAD_PER_TICK) + 2048;
    for (int b = 0; b < 4; b++) data[i * 4 + b] = (uint8_t)((uint32_t)raw >> (8 * b));
  }
  bus_send(pkt, dxl_sync_write(DXL_ADDR_GOAL_POSITION, 4, ids, DUCK_JOINTS, data, pkt, sizeof pkt));
}

void hal_hold(void) { hal_set_targets(pos); }

void hal_read_state(hal_state_t *out) {
  memcpy(out->pos, pos, sizeof pos);
  memcpy(out->vel, vel, sizeof vel);
  out->gyro[0] = out->gyro[1] = out->gyro[2] = 0.0f;
  out->accel[0] = out->accel[1] = 0.0f;
  out->accel[2] = 9.81f;
  out->contact[0] = !gpio_get(FOOT_LEFT_PIN);
  out->contact[1] = !gpio_get(FOOT_RIGHT_PIN);
  out->battery_v = (float)adc_read() * (3.3f / 4096.0f) * BATTERY_DIVIDER;
}

void hal_quack(void) { quack_until = to_ms_since_boot(get_absolute_time()) + 150u; }
