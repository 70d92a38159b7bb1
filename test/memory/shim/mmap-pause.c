/*
 * An LD_PRELOAD shim for the memory race tests: it holds a process inside mmap() of the LMDB data
 * file, the window of mdb_env_open2 between reading the meta pages and writing the transaction id
 * into the shared lock file, until the test says go. Nothing in quackd or lmdb changes.
 *
 *   QUACKD_SHIM_DIR   a directory: the shim creates `paused-<pid>` there when it stops, and goes on
 *                     once `go` exists there (or after 20 s). Unset: the shim does nothing.
 *   QUACKD_SHIM_FILE  the data file's basename to pause on (default memory.mdb).
 *
 * Only the first mmap of that file in a process pauses. Build: gcc -shared -fPIC -o mmap-pause.so mmap-pause.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);
static int paused_once = 0;

static int names_data_file(int fd, const char *want) {
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = 0;
  const char *base = strrchr(path, '/');
  return base != NULL && strcmp(base + 1, want) == 0;
}

static void maybe_pause(int fd) {
  const char *dir = getenv("QUACKD_SHIM_DIR");
  if (dir != NULL && fd >= 0 && !__atomic_load_n(&paused_once, __ATOMIC_SEQ_CST)) {
    const char *want = getenv("QUACKD_SHIM_FILE");
    if (names_data_file(fd, want != NULL ? want : "memory.mdb") && !__atomic_exchange_n(&paused_once, 1, __ATOMIC_SEQ_CST)) {
      char marker[PATH_MAX], go[PATH_MAX];
      snprintf(marker, sizeof marker, "%s/paused-%d", dir, (int)getpid());
      snprintf(go, sizeof go, "%s/go", dir);
      int m = open(marker, O_CREAT | O_WRONLY, 0600);
      if (m >= 0) close(m);
      struct stat st;
      struct timespec tick = {0, 1000000};
      for (int i = 0; i < 20000 && stat(go, &st) != 0; i++) nanosleep(&tick, NULL);
    }
  }
}

/* lmdb's prebuilt binaries call mmap64 (glibc's large-file name); both names are covered. */
void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  static mmap_fn real = NULL;
  if (real == NULL) real = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
  maybe_pause(fd);
  return real(addr, len, prot, flags, fd, off);
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  static mmap_fn real = NULL;
  if (real == NULL) real = (mmap_fn)dlsym(RTLD_NEXT, "mmap64");
  maybe_pause(fd);
  return real(addr, len, prot, flags, fd, off);
}
