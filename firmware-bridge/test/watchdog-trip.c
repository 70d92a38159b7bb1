/*
 * watchdog-trip: how long after its last heartbeat the host firmware really cuts torque, measured
 * from outside (make watchdog-trip). It runs build/quackd-fw-host on a pty of its own (openpty, no
 * socat), switches torque on, sends one heartbeat request and then nothing, and times the fault:
 *   - on the firmware's clock: fault.t - heartbeat.t (ms, as the firmware stamped them);
 *   - on this side's clock: from writing the heartbeat to reading the fault (includes the pty).
 *
 *   watchdog-trip [--firmware PATH] [--rounds N] [--watchdog-ms N]
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "../src/frame.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void send_json(int fd, const char *json) {
  uint8_t wire[FRAME_MAX_WIRE];
  size_t n = frame_encode((const uint8_t *)json, strlen(json), wire, sizeof wire);
  if (write(fd, wire, n) != (ssize_t)n) perror("watchdog-trip: write");
}

static frame_decoder_t dec;

/* The next frame whose payload contains `want`, copied into out; false on timeout. */
static bool wait_for(int fd, const char *want, char *out, size_t cap, int timeout_ms, double *at) {
  double until = now_ms() + timeout_ms;
  uint8_t buf[256];
  while (now_ms() < until) {
    struct pollfd p = {fd, POLLIN, 0};
    if (poll(&p, 1, 5) <= 0) continue;
    ssize_t n = read(fd, buf, sizeof buf);
    double t = now_ms();
    for (ssize_t i = 0; i < n; i++) {
      const uint8_t *payload = NULL;
      size_t len = frame_decoder_push(&dec, buf[i], &payload);
      if (len == 0 || len >= cap) continue;
      memcpy(out, payload, len);
      out[len] = '\0';
      if (strstr(out, want) != NULL) {
        if (at != NULL) *at = t;
        return true;
      }
    }
  }
  return false;
}

static long field_t(const char *json) {
  const char *p = strstr(json, "\"t\":");
  return p == NULL ? -1 : strtol(p + 4, NULL, 10);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  const char *firmware = "build/quackd-fw-host";
  int rounds = 20;
  const char *watchdog = "200";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--firmware") == 0) firmware = argv[i + 1];
    if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[i + 1]);
    if (strcmp(argv[i], "--watchdog-ms") == 0) watchdog = argv[i + 1];
  }
  if (rounds < 1 || rounds > 1000) rounds = 20;
  int master = -1, slave = -1;
  char name[128];
  if (openpty(&master, &slave, name, NULL, NULL) != 0) {
    perror("watchdog-trip: openpty");
    return 1;
  }
  struct termios t;
  tcgetattr(slave, &t);
  cfmakeraw(&t);
  tcsetattr(slave, TCSANOW, &t);
  pid_t child = fork();
  if (child == 0) {
    close(master);
    execl(firmware, firmware, "--port", name, "--state-hz", "0", "--watchdog-ms", watchdog, (char *)NULL);
    perror("watchdog-trip: exec");
    _exit(127);
  }
  frame_decoder_init(&dec);
  char json[FRAME_MAX_PAYLOAD + 1];
  send_json(master, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"hello\"}");
  if (!wait_for(master, "\"protocol\"", json, sizeof json, 3000, NULL)) {
    fprintf(stderr, "watchdog-trip: no hello from %s\n", firmware);
    kill(child, SIGKILL);
    return 1;
  }
  double fw[1000], wall[1000];
  int got = 0;
  for (int r = 0; r < rounds; r++) {
    send_json(master, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"torque\",\"params\":{\"on\":true}}");
    if (!wait_for(master, "\"id\":2", json, sizeof json, 1000, NULL)) continue;
    double sent = now_ms(), fault_at = 0;
    send_json(master, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"heartbeat\"}");
    if (!wait_for(master, "\"id\":3", json, sizeof json, 1000, NULL)) continue;
    long hb = field_t(json);
    if (!wait_for(master, "\"code\":\"watchdog\"", json, sizeof json, 3000, &fault_at)) continue;
    fw[got] = (double)(field_t(json) - hb);
    wall[got] = fault_at - sent;
    got++;
  }
  kill(child, SIGTERM);
  waitpid(child, NULL, 0);
  if (got == 0) {
    fprintf(stderr, "watchdog-trip: no fault seen\n");
    return 1;
  }
  qsort(fw, (size_t)got, sizeof fw[0], cmp);
  qsort(wall, (size_t)got, sizeof wall[0], cmp);
  int p90 = (got * 9) / 10;
  printf("watchdog-trip: %d rounds, watchdog %s ms: firmware clock min %.0f median %.0f p90 %.0f max %.0f ms;"
         " wall clock min %.2f median %.2f p90 %.2f max %.2f ms\n",
         got, watchdog, fw[0], fw[got / 2], fw[p90], fw[got - 1], wall[0], wall[got / 2], wall[p90], wall[got - 1]);
  return 0;
}
