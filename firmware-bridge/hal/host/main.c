/*
 * quackd-fw-host: the firmware's protocol core on Linux, talking over a serial device or pty
 * (e.g. one end of a socat pair), or over the master of a pty a test rig holds and hands over
 * (--cable, cable.h), with a simulated Microduck behind hal.h. Used by the tests, the bench and
 * anyone developing against the protocol without a robot.
 *
 *   quackd-fw-host (--port PATH | --cable FD) [--baud N] [--state-hz N] [--watchdog-ms N]
 *                  [--max-vel RAD_S] [--tick-ms N] [--torque-attempts N] [--torque-confirm-ms N]
 *                  [--battery V] [--drain V_PER_S] [--noise-ms N] [--seed N]
 *                  [--drop-torque-off-writes N] [--tilt-at MS:DEG[:AXIS]]... [--reopen]
 *                  [--yaw-rate DEG_S] [--plant PATH]
 *
 * The loop wakes at every millisecond boundary (not 1 ms after it last slept), so the core sees
 * each millisecond of the clock and its watchdog trips in the millisecond it is due.
 * Test hooks of the simulation: --tilt-at tips the simulated IMU (tilt.h; SIGUSR1 starts a `USR1`
 * step); --reopen keeps running when the link hangs up (or a write to it fails) and opens --port
 * again once it is back (on --cable: waits for the next plug-in), as a duck's microcontroller on
 * its own battery does while its USB cable is out; --yaw-rate turns the trunk left at DEG_S while a joint moves, so a `turn` ends on the
 * gyro (hal-host.c); --plant takes the joints and the IMU from another process's physics through
 * a shared file (plant.h), so a physics simulator's duck walks on this firmware's servo bus.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../../src/frame.h"
#include "../../src/hal.h"
#include "../../src/proto.h"
#include "cable.h"
#include "host.h"
#include "plant.h"
#include "sim.h"
#include "tilt.h"

#define FIRMWARE_VERSION "quackd-fw 0.1.0"

static volatile sig_atomic_t running = 1;
static volatile sig_atomic_t usr1; /* SIGUSR1s so far; the loop hands each to tilt_signal */

static void on_signal(int sig) {
  if (sig == SIGUSR1) usr1++;
  else running = 0;
}

static uint32_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint32_t)((uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u);
}

static int usage(const char *why) {
  if (why != NULL) fprintf(stderr, "quackd-fw-host: %s\n", why);
  fputs("usage: quackd-fw-host (--port PATH | --cable FD) [--baud N] [--state-hz N] [--watchdog-ms N]\n"
        "                      [--max-vel RAD_S] [--tick-ms N] [--torque-attempts N] [--torque-confirm-ms N]\n"
        "                      [--battery V] [--drain V_PER_S] [--noise-ms N] [--seed N]\n"
        "                      [--drop-torque-off-writes N] [--tilt-at MS:DEG[:AXIS]]... [--reopen]\n"
        "                      [--yaw-rate DEG_S] [--plant PATH]\n",
        stderr);
  return 2;
}

static int parse_num(const char *s, double min, double max, double *out) {
  char *end = NULL;
  if (s == NULL) return -1;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || v < min || v > max) return -1;
  *out = v;
  return 0;
}

static speed_t speed_for(double baud) {
  switch ((long)baud) {
    case 115200: return B115200;
    case 230400: return B230400;
    case 460800: return B460800;
    case 921600: return B921600;
    case 1000000: return B1000000;
    case 2000000: return B2000000;
    default: return B1000000;
  }
}

static int open_link(const char *path, double baud) {
  int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) return -1;
  struct termios t;
  if (tcgetattr(fd, &t) == 0) {
    cfmakeraw(&t);
    cfsetspeed(&t, speed_for(baud)); /* ptys ignore the speed; a real UART needs it */
    tcsetattr(fd, TCSANOW, &t);
  }
  return fd;
}

/* A burst of line noise plus a frame with one flipped bit, for exercising the host's decoder. */
static void inject_noise(void) {
  uint8_t burst[48];
  size_t n = 1u + (size_t)(rand() % 40);
  for (size_t i = 0; i < n; i++) burst[i] = (uint8_t)(rand() & 0xFF);
  burst[n++] = 0;
  hal_write(burst, n);
  static const char note[] = "{\"jsonrpc\":\"2.0\",\"method\":\"state\",\"params\":{}}";
  uint8_t wire[128];
  size_t w = frame_encode((const uint8_t *)note, sizeof note - 1u, wire, sizeof wire);
  if (w > 1) {
    size_t at = (size_t)rand() % (w - 1u);
    wire[at] ^= (uint8_t)(1u << (rand() % 8));
    hal_write(wire, w);
  }
}

/* With the link gone (fd < 0) the frames are dropped, as a USB device with no host drops them. */
static int flush_tx(int fd) {
  const uint8_t *bytes = NULL;
  size_t n;
  while ((n = host_tx_peek(&bytes)) > 0) {
    if (fd < 0) {
      host_tx_consume(n);
      continue;
    }
    ssize_t w = write(fd, bytes, n);
    if (w < 0) return (errno == EAGAIN || errno == EINTR) ? 0 : -1;
    host_tx_consume((size_t)w);
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *port = NULL, *plant_path = NULL;
  double baud = 1000000, state_hz = 50, watchdog = PROTO_WATCHDOG_MS, battery = 8.2, drain = 0.002;
  double noise_ms = 0, seed = (double)(now_ms() ^ (uint32_t)getpid());
  double max_vel = PROTO_MAX_VEL, tick_ms = PROTO_TICK_MS, attempts = PROTO_TORQUE_ATTEMPTS;
  double confirm_ms = PROTO_TORQUE_CONFIRM_MS, drop_torque = 0, yaw_rate = 0, cable_fd = -1;
  const struct {
    const char *flag;
    double *value;
    double min, max;
  } numeric[] = {
      {"--baud", &baud, 1200, 4000000},   {"--state-hz", &state_hz, 0, 500}, {"--watchdog-ms", &watchdog, 10, 60000},
      {"--battery", &battery, 0, 30},     {"--drain", &drain, 0, 10},        {"--noise-ms", &noise_ms, 0, 60000},
      {"--seed", &seed, 0, 4294967295.0}, {"--max-vel", &max_vel, 0.1, 1000}, {"--tick-ms", &tick_ms, 1, 1000},
      {"--torque-attempts", &attempts, 1, 100}, {"--torque-confirm-ms", &confirm_ms, 1, 10000},
      {"--drop-torque-off-writes", &drop_torque, 0, 1000}, {"--yaw-rate", &yaw_rate, -720, 720},
      {"--cable", &cable_fd, 0, 65535},
  };
  tilt_step_t tilts[TILT_MAX_STEPS];
  int ntilts = 0, reopen = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(NULL);
      return 0;
    }
    if (strcmp(a, "--reopen") == 0) {
      reopen = 1;
      continue;
    }
    int known = 0, bad = 0;
    if (strcmp(a, "--port") == 0) {
      port = v;
      known = 1;
      bad = v == NULL;
    }
    if (strcmp(a, "--plant") == 0) {
      plant_path = v;
      known = 1;
      bad = v == NULL;
    }
    if (strcmp(a, "--tilt-at") == 0) {
      known = 1;
      if (ntilts >= TILT_MAX_STEPS) return usage("too many --tilt-at steps (at most 8)");
      bad = tilt_parse(v, &tilts[ntilts]) != 0;
      if (bad) return usage("--tilt-at takes MS:DEG[:pitch|roll] (MS 0..86400000 or USR1, DEG -180..180)");
      ntilts++;
    }
    for (size_t k = 0; k < sizeof numeric / sizeof numeric[0] && !known; k++) {
      if (strcmp(a, numeric[k].flag) != 0) continue;
      known = 1;
      bad = parse_num(v, numeric[k].min, numeric[k].max, numeric[k].value);
    }
    if (!known) return usage("unknown option");
    if (bad) return usage("missing or invalid value");
    i++;
  }
  if ((port == NULL) == (cable_fd < 0)) return usage("one of --port and --cable is required");
  const int cable = (int)cable_fd;
  /* What the log lines name the link by. */
  const char *where = port != NULL ? port : "the cable";
  if (plant_path != NULL && !plant_open(plant_path)) {
    fprintf(stderr, "quackd-fw-host: cannot open the plant %s: %s\n", plant_path, strerror(errno));
    return 3;
  }

  /* On the cable the link arrives once the loop runs: the rig plugs it in as it starts this program. */
  int fd = port != NULL ? open_link(port, baud) : -1;
  if (port != NULL && fd < 0) {
    fprintf(stderr, "quackd-fw-host: cannot open %s: %s\n", port, strerror(errno));
    return 3;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGUSR1, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  srand((unsigned)seed);

  uint32_t t0 = now_ms();
  sim_init(&(sim_config_t){(float)battery, (float)drain, (float)yaw_rate});
  proto_init(&(proto_config_t){.firmware = FIRMWARE_VERSION,
                               .board = "host",
                               .state_hz = (uint32_t)state_hz,
                               .watchdog_ms = (uint32_t)watchdog,
                               .boot_id = (uint32_t)rand(),
                               .max_vel = (float)max_vel,
                               .tick_ms = (uint32_t)tick_ms,
                               .torque_attempts = (uint32_t)attempts,
                               .torque_confirm_ms = (uint32_t)confirm_ms},
             t0);
  sim_drop_torque_off_writes((unsigned)drop_torque); /* after boot's own torque off: the host's */
  for (int k = 0; k < ntilts; k++) tilt_add(&tilts[k]);
  fprintf(stderr,
          "quackd-fw-host: ready on %s (protocol %d, 14 joints, state %u Hz, watchdog %u ms, "
          "step limit %g rad/s x %u ms)\n",
          where, PROTO_VERSION, (unsigned)state_hz, (unsigned)watchdog, max_vel, (unsigned)tick_ms);

  uint32_t next_noise = t0 + (uint32_t)noise_ms;
  uint32_t next_open = t0;
  sig_atomic_t usr1_seen = 0;
  int was_plugged = 0; /* on the cable: a plug-in after the first is the link coming back */
  uint8_t buf[512];
  int status = 0;
  while (running) {
    const uint8_t *pending = NULL;
    /* poll ignores a negative fd: with the link out the loop still runs the clock. */
    struct pollfd polled[2] = {{fd, (short)(POLLIN | (host_tx_peek(&pending) > 0 ? POLLOUT : 0)), 0}, {cable, POLLIN, 0}};
    struct pollfd p = polled[0];
    struct timespec ts, wait = {0, 0};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    wait.tv_nsec = 1000000L - ts.tv_nsec % 1000000L + 20000L; /* just past the next ms boundary */
    int r = ppoll(polled, 2, &wait, NULL);
    p = polled[0];
    uint32_t now = now_ms();
    const char *gone = NULL;
    if (r > 0 && (p.revents & POLLIN)) {
      ssize_t n = read(fd, buf, sizeof buf);
      if (n > 0) {
        proto_rx(buf, (size_t)n, now);
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        gone = "closed";
      }
    } else if (r > 0 && (p.revents & (POLLHUP | POLLERR))) {
      gone = "hung up";
    }
    if (r > 0 && (polled[1].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))) {
      int plugged = -1;
      int event = cable_receive(cable, &plugged);
      if (event == CABLE_PLUGGED) {
        if (fd >= 0) close(fd);
        fd = plugged;
        gone = NULL;
        fprintf(stderr, "quackd-fw-host: link %s (%s)\n", was_plugged ? "back" : "plugged in", where);
        was_plugged = 1;
      } else if (event == CABLE_PULLED) {
        gone = "hung up"; /* as a pulled USB cable is, to the board */
      } else if (event == 0) {
        fprintf(stderr, "quackd-fw-host: the cable's far end went: nothing will plug in again\n");
        status = 1;
        break;
      }
    }
    if (gone != NULL && !reopen) {
      fprintf(stderr, "quackd-fw-host: link %s (%s)\n", gone, where);
      status = 1;
      break;
    }
    if (gone != NULL) {
      fprintf(stderr, "quackd-fw-host: link %s (%s); reopening it when it is back\n", gone, where);
      close(fd);
      fd = -1;
      next_open = now + 50u;
    }
    if (port != NULL && fd < 0 && (int32_t)(now - next_open) >= 0) {
      fd = open_link(port, baud);
      next_open = now + 50u;
      if (fd >= 0) fprintf(stderr, "quackd-fw-host: link back (%s)\n", port);
    }
    for (; usr1_seen != usr1; usr1_seen++) tilt_signal();
    sim_step(now);
    proto_poll(now);
    if (noise_ms > 0 && (int32_t)(now - next_noise) >= 0) {
      inject_noise();
      next_noise = now + (uint32_t)noise_ms;
    }
    if (flush_tx(fd) != 0) {
      if (!reopen) {
        fprintf(stderr, "quackd-fw-host: write failed on %s: %s\n", where, strerror(errno));
        status = 1;
        break;
      }
      /* The far end went while a write was pending: the same hang-up, seen by the write first. */
      fprintf(stderr, "quackd-fw-host: link write failed (%s: %s); reopening it when it is back\n", where, strerror(errno));
      close(fd);
      fd = -1;
      next_open = now + 50u;
    }
  }
  hal_set_torque(false); /* powering down: limp, never holding a stale target */
  if (fd >= 0) close(fd);
  return status;
}
