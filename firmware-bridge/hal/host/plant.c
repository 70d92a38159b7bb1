/*
 * plant.h over a regular file: pread/pwrite of one record at its offset. A record carries its
 * seq at both ends, so a read that overlapped the other side's write is seen and dropped.
 */
#define _GNU_SOURCE
#include "plant.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static int fd = -1;
static uint32_t goals_seq;

bool plant_open(const char *path) {
  fd = open(path, O_RDWR | O_CLOEXEC);
  return fd >= 0;
}

bool plant_active(void) { return fd >= 0; }

void plant_send(const float goal[DUCK_JOINTS], uint32_t torque_mask) {
  if (fd < 0) return;
  uint8_t rec[4 + 4 + 4 * DUCK_JOINTS + 4];
  goals_seq++;
  memcpy(rec, &goals_seq, 4);
  memcpy(rec + 4, &torque_mask, 4);
  memcpy(rec + 8, goal, 4 * DUCK_JOINTS);
  memcpy(rec + 8 + 4 * DUCK_JOINTS, &goals_seq, 4);
  (void)!pwrite(fd, rec, sizeof rec, PLANT_GOALS_AT);
}

bool plant_read(plant_state_t *out) {
  if (fd < 0) return false;
  uint8_t rec[4 + sizeof(plant_state_t) + 4];
  if (pread(fd, rec, sizeof rec, PLANT_STATE_AT) != (ssize_t)sizeof rec) return false;
  uint32_t head, tail;
  memcpy(&head, rec, 4);
  memcpy(&tail, rec + 4 + sizeof(plant_state_t), 4);
  if (head == 0 || head != tail) return false;
  memcpy(out, rec + 4, sizeof *out);
  return true;
}
