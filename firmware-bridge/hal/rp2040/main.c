/*
 * quackd-fw on an RP2040: the same protocol core as the host build, with hal-rp2040.c. The
 * chip's own watchdog resets it (servos limp at reset) if this loop ever stalls for 100 ms; the
 * protocol's heartbeat watchdog covers a host that goes quiet.
 */
#include "../../src/proto.h"
#include "board.h"
#include "hardware/watchdog.h"
#include "pico/rand.h"
#include "pico/time.h"
#include "rp2040.h"

int main(void) {
  rp2040_hal_init();
  uint32_t now = to_ms_since_boot(get_absolute_time());
  proto_init(&(proto_config_t){.firmware = "quackd-fw 0.1.0",
                               .board = "rp2040",
                               .state_hz = STATE_HZ,
                               .watchdog_ms = PROTO_WATCHDOG_MS,
                               .boot_id = get_rand_32(),
                               .max_vel = STEP_MAX_VEL,
                               .tick_ms = STEP_TICK_MS,
                               .torque_attempts = TORQUE_ATTEMPTS,
                               .torque_confirm_ms = TORQUE_CONFIRM_MS},
             now);
  watchdog_enable(100, true);
  uint8_t buf[64];
  for (;;) {
    now = to_ms_since_boot(get_absolute_time());
    size_t n = rp2040_link_read(buf, sizeof buf);
    if (n > 0) proto_rx(buf, n, now);
    proto_poll(now);
    rp2040_service(now);
    watchdog_update();
  }
}
