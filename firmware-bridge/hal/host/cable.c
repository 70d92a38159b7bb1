/* The cable's receiving end (cable.h). */
#define _GNU_SOURCE
#include "cable.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int cable_receive(int cable, int *fd) {
  char what = 0;
  struct iovec iov = {&what, 1};
  union {
    struct cmsghdr align;
    char bytes[CMSG_SPACE(sizeof(int))];
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.bytes;
  msg.msg_controllen = sizeof control.bytes;
  ssize_t n = recvmsg(cable, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (n == 0) return 0;
  if (n < 0) return (errno == EAGAIN || errno == EINTR) ? -1 : 0;
  int got = -1;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  if (c != NULL && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(sizeof(int))) {
    memcpy(&got, CMSG_DATA(c), sizeof got);
  }
  if (what == CABLE_PLUGGED && got >= 0) {
    fcntl(got, F_SETFL, fcntl(got, F_GETFL) | O_NONBLOCK);
    *fd = got;
    return CABLE_PLUGGED;
  }
  if (got >= 0) close(got);
  return what == CABLE_PULLED ? CABLE_PULLED : -1;
}
