/*
 * hal.h on an RP2040 with the pico-sdk: XL330 servos over Dynamixel 2.0 on UART1, foot switches
 * on GPIO, battery on ADC0, a buzzer for quack. No IMU driver yet: the IMU fields report level
 * and still.
 *
 * Receiving: both UARTs' receive interrupts move bytes into rings (ring.h), so nothing is lost
 * while the main loop is busy (a blocking bus write, a 1 KB frame to parse); polling the 32-byte
 * FIFOs dropped bytes. Transmitting to the host: a ring drained by the main loop as the UART FIFO
 * has room, so the loop (and the watchdog in it) never blocks on a host that stopped reading.
 * The servo bus: the core's calls only record what is wanted (torque, goal positions, a torque
 * read-back); bus.h decides when each packet may go, and never while servo replies are still due.
 */
#include <math.h>
#include <string.h>

#include "../../src/duck.h"
#include "../../src/hal.h"
#include "board.h"
#include "bus.h"
#include "dynamixel.h"
#include "hardware/adc.h"
#include "hardware/gpio.h"
#include "hardware/irq.h"
#include "hardware/timer.h"
#include "hardware/uart.h"
#include "pico/time.h"
#include "ring.h"
#include "rp2040.h"

#define TX_RING 4096u
#define LINK_RX_RING 2048u /* 20 ms of a saturated 1 Mbaud link */
#define BUS_RX_RING 512u   /* two full rounds of 14 position replies */
#define RAD_PER_TICK (6.283185307f / 4096.0f)

/* Dynamixel ids in policy order: left leg 20-24, neck/head 30-33, right leg 10-14. */
static const uint8_t ids[DUCK_JOINTS] = {20, 21, 22, 23, 24, 30, 31, 32, 33, 10, 11, 12, 13, 14};

static uint8_t tx[TX_RING];
static size_t tx_head, tx_len;
static volatile uint8_t link_rx_buf[LINK_RX_RING], bus_rx_buf[BUS_RX_RING];
static ring_t link_rx, bus_rx;

static bus_t bus;
static dxl_parser_t parser;
static bool torque_value;                 /* the torque enable the next torque write carries */
static uint8_t goal_data[DUCK_JOINTS * 4]; /* the goal positions the next goal write carries */
static bool readback_sent;                /* the read-back asked for has gone out on the bus */
static uint32_t readback_off, readback_answered;

static float pos[DUCK_JOINTS], vel[DUCK_JOINTS];
static uint32_t pos_ms[DUCK_JOINTS];
static uint32_t next_read;
static uint32_t quack_until;

static void link_rx_irq(void) {
  while (uart_is_readable(uart0)) ring_push(&link_rx, (uint8_t)uart_getc(uart0));
}

static void bus_rx_irq(void) {
  while (uart_is_readable(uart1)) ring_push(&bus_rx, (uint8_t)uart_getc(uart1));
}

/* Blocking, but short (under 1 ms at 1 Mbaud) and both receivers keep filling their rings. */
static void bus_send(const uint8_t *bytes, size_t n) {
  gpio_put(BUS_DIR_PIN, 1);
  for (size_t i = 0; i < n; i++) uart_putc_raw(uart1, (char)bytes[i]);
  uart_tx_wait_blocking(uart1); /* the last stop bit is out: release the bus for the replies */
  gpio_put(BUS_DIR_PIN, 0);
}

static void transmit(bus_op_t op) {
  uint8_t pkt[DXL_MAX_PACKET];
  uint8_t data[DUCK_JOINTS];
  size_t n = 0;
  uint32_t replies = 0, reply_bytes = 0;
  switch (op) {
    case BUS_TORQUE:
      memset(data, torque_value ? 1 : 0, sizeof data);
      n = dxl_sync_write(DXL_ADDR_TORQUE_ENABLE, 1, ids, DUCK_JOINTS, data, pkt, sizeof pkt);
      break;
    case BUS_GOAL:
      n = dxl_sync_write(DXL_ADDR_GOAL_POSITION, 4, ids, DUCK_JOINTS, goal_data, pkt, sizeof pkt);
      break;
    case BUS_TORQUE_READ:
      n = dxl_sync_read(DXL_ADDR_TORQUE_ENABLE, 1, ids, DUCK_JOINTS, pkt, sizeof pkt);
      replies = DUCK_JOINTS;
      reply_bytes = DXL_STATUS_BYTES(1);
      readback_off = readback_answered = 0; /* only answers to this very packet count */
      readback_sent = true;
      break;
    case BUS_POS_READ:
    default:
      n = dxl_sync_read(DXL_ADDR_PRESENT_POSITION, 4, ids, DUCK_JOINTS, pkt, sizeof pkt);
      replies = DUCK_JOINTS;
      reply_bytes = DXL_STATUS_BYTES(4);
      break;
  }
  bus_send(pkt, n);
  bus_sent(&bus, op, time_us_32(), replies, reply_bytes);
}

static int joint_of(uint8_t id) {
  for (int i = 0; i < DUCK_JOINTS; i++) {
    if (ids[i] == id) return i;
  }
  return -1;
}

static void on_status(const dxl_status_t *st, uint32_t now_ms) {
  int i = joint_of(st->id);
  if (i < 0) return;
  bus_op_t op = st->n == 1 ? BUS_TORQUE_READ : BUS_POS_READ;
  bus_reply(&bus, op, time_us_32());
  if ((st->error & 0x7Fu) != 0) return; /* it answered, but the read failed: no data */
  if (st->n == 1) {
    if (!readback_sent) return;
    readback_answered |= 1u << i;
    if (st->value == 0) readback_off |= 1u << i;
  } else if (st->n == 4) {
    float p = (float)((int32_t)st->value - 2048) * RAD_PER_TICK;
    uint32_t dt = now_ms - pos_ms[i];
    vel[i] = dt > 0 && dt < 1000u ? (p - pos[i]) * 1000.0f / (float)dt : 0.0f;
    pos[i] = p;
    pos_ms[i] = now_ms;
  }
}

void rp2040_hal_init(void) {
  ring_init(&link_rx, link_rx_buf, LINK_RX_RING);
  ring_init(&bus_rx, bus_rx_buf, BUS_RX_RING);
  bus_init(&bus, &(bus_timing_t){BUS_BYTE_US, BUS_RETURN_DELAY_US, BUS_GUARD_US});
  uart_init(uart0, LINK_BAUD);
  gpio_set_function(LINK_TX_PIN, GPIO_FUNC_UART);
  gpio_set_function(LINK_RX_PIN, GPIO_FUNC_UART);
  uart_init(uart1, BUS_BAUD);
  gpio_set_function(BUS_TX_PIN, GPIO_FUNC_UART);
  gpio_set_function(BUS_RX_PIN, GPIO_FUNC_UART);
  irq_set_exclusive_handler(UART0_IRQ, link_rx_irq);
  irq_set_exclusive_handler(UART1_IRQ, bus_rx_irq);
  irq_set_enabled(UART0_IRQ, true);
  irq_set_enabled(UART1_IRQ, true);
  uart_set_irq_enables(uart0, true, false); /* RX (FIFO at 4 bytes) and RX timeout, no TX */
  uart_set_irq_enables(uart1, true, false);
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

size_t rp2040_link_read(uint8_t *buf, size_t cap) { return ring_pop(&link_rx, buf, cap); }

uint32_t rp2040_rx_dropped(void) { return link_rx.dropped + bus_rx.dropped; }

void rp2040_service(uint32_t now) {
  while (tx_len > 0 && uart_is_writable(uart0)) {
    uart_putc_raw(uart0, (char)tx[tx_head]);
    tx_head = (tx_head + 1u) % TX_RING;
    tx_len--;
  }
  uint8_t bytes[64];
  size_t n;
  while ((n = ring_pop(&bus_rx, bytes, sizeof bytes)) > 0) {
    for (size_t i = 0; i < n; i++) {
      dxl_status_t st;
      if (dxl_parse_status(&parser, bytes[i], &st)) on_status(&st, now);
    }
  }
  if ((int32_t)(now - next_read) >= 0) {
    bus_request(&bus, BUS_POS_READ, false);
    next_read = now + READ_PERIOD_MS;
  }
  int op = bus_next(&bus, time_us_32());
  if (op != BUS_NONE) transmit((bus_op_t)op);
  gpio_put(BUZZER_PIN, (int32_t)(now - quack_until) < 0 && ((now / 2u) & 1u));
}

bool hal_write(const uint8_t *bytes, size_t len) {
  if (len > TX_RING - tx_len) return false;
  for (size_t i = 0; i < len; i++) tx[(tx_head + tx_len + i) % TX_RING] = bytes[i];
  tx_len += len;
  return true;
}

void hal_set_torque(bool on) {
  torque_value = on;
  bus_request(&bus, BUS_TORQUE, !on); /* a torque off goes before anything else waiting */
}

void hal_torque_query(void) {
  readback_sent = false;
  readback_off = readback_answered = 0;
  bus_request(&bus, BUS_TORQUE_READ, false);
}

bool hal_torque_readback(uint32_t *off) {
  *off = readback_off;
  return readback_sent && readback_answered == DUCK_ALL_JOINTS;
}

void hal_set_targets(const float p[DUCK_JOINTS]) {
  for (int i = 0; i < DUCK_JOINTS; i++) {
    int32_t raw = (int32_t)lroundf(p[i] / RAD_PER_TICK) + 2048;
    for (int b = 0; b < 4; b++) goal_data[i * 4 + b] = (uint8_t)((uint32_t)raw >> (8 * b));
  }
  bus_request(&bus, BUS_GOAL, false);
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
