/*
 * Minimal reproduction: an env open that overlaps another process's commit writes a stale
 * transaction id into the shared lock file (mdb_env_open2: `env->me_txns->mti_txnid =
 * meta.mm_txnid;`), and the next write transaction overwrites the newer commit.
 *
 *   P  opens the env read-write, commits note1 (txn N), stays open
 *   A  opens read-only; this program holds A inside mmap() of data.mdb, i.e. after
 *      mdb_env_read_header() has read meta N and before mti_txnid is written
 *   Q  opens, commits note2 (txn N+1, fsynced), closes, exits 0
 *   go A finishes its open; with lmdb-js's mdb.c this sets mti_txnid back to N
 *   P  commits note3: the write txn starts from ti->mti_txnid = N, commits as N+1
 *   R  a fresh process opens the env and looks for note1, note2, note3
 *
 * The pause: this file defines mmap()/mmap64(), which pre-empt libc's both for mdb.c compiled
 * into the program and (with -rdynamic) for a shared liblmdb.so. Only A, only data.mdb, only once.
 * The processes are sequenced with pipes; there are no sleeps. Exit status 1 = note2 lost,
 * 0 = note2 kept, 2 = setup error. `./repro nopause` is the control: same steps, but A's open
 * completes before Q starts. Build: see build.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lmdb.h"

static char dir[] = "/tmp/lmdb-txnid-race-XXXXXX";
static int pause_fd_in = -1, pause_fd_out = -1; /* set only in A */
static int nopause = 0; /* control run: A completes its open before Q starts */

static void die(const char *who, const char *what, int rc) {
  fprintf(stderr, "%s: %s: %s\n", who, what, mdb_strerror(rc));
  _exit(2);
}
static void say(int fd, char c) { if (write(fd, &c, 1) != 1) _exit(2); }
static char hear(int fd) { char c; if (read(fd, &c, 1) != 1) _exit(2); return c; }

static int is_data_file(int fd) {
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = 0;
  return n >= 9 && strcmp(path + n - 9, "/data.mdb") == 0;
}

static void *real_mmap(void *a, size_t l, int p, int f, int fd, off_t o) {
  return (void *)syscall(SYS_mmap, a, l, p, f, fd, o);
}
void *mmap(void *a, size_t l, int p, int f, int fd, off_t o) {
  if (pause_fd_out >= 0 && fd >= 0 && is_data_file(fd)) {
    say(pause_fd_out, 'p');   /* "paused in mmap(data.mdb)" */
    hear(pause_fd_in);        /* wait for go */
    pause_fd_out = -1;
  }
  return real_mmap(a, l, p, f, fd, o);
}
void *mmap64(void *a, size_t l, int p, int f, int fd, off_t o) { return mmap(a, l, p, f, fd, o); }

static MDB_env *open_env(const char *who, unsigned flags) {
  MDB_env *env;
  int rc = mdb_env_create(&env);
  if (!rc) rc = mdb_env_set_mapsize(env, 1 << 24);
  if (!rc) rc = mdb_env_open(env, dir, flags, 0644);
  if (rc) die(who, "mdb_env_open", rc);
  return env;
}

static size_t put(const char *who, MDB_env *env, const char *key) {
  MDB_txn *txn; MDB_dbi dbi; MDB_val k = {strlen(key), (void *)key}, v = {2, "ok"};
  int rc = mdb_txn_begin(env, NULL, 0, &txn);
  if (rc) die(who, "mdb_txn_begin", rc);
  size_t id = mdb_txn_id(txn);
  if ((rc = mdb_dbi_open(txn, NULL, 0, &dbi)) || (rc = mdb_put(txn, dbi, &k, &v, 0)))
    die(who, "mdb_put", rc);
  if ((rc = mdb_txn_commit(txn))) die(who, "mdb_txn_commit", rc);
  printf("%s: put %s, committed txn %zu (rc 0)\n", who, key, id);
  fflush(stdout);
  return id;
}

/* txn id a new read transaction gets: the lock file's mti_txnid */
static size_t lock_txnid(MDB_env *env) {
  MDB_txn *txn; size_t id;
  if (mdb_txn_begin(env, NULL, MDB_RDONLY, &txn)) return 0;
  id = mdb_txn_id(txn);
  mdb_txn_abort(txn);
  return id;
}
static size_t meta_txnid(MDB_env *env) { MDB_envinfo i; mdb_env_info(env, &i); return i.me_last_txnid; }

static void on_alarm(int sig) {
  (void)sig;
  static const char m[] = "P: mdb_env_close still blocked after 5 s, exiting without it\n";
  if (write(1, m, sizeof m - 1)) {}
  _exit(0);
}

static pid_t child(int *to, int *from, void (*body)(int in, int out)) {
  int down[2], up[2];
  if (pipe(down) || pipe(up)) exit(2);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) { close(down[1]); close(up[0]); body(down[0], up[1]); _exit(0); }
  close(down[0]); close(up[1]);
  *to = down[1]; *from = up[0];
  return pid;
}

static void run_p(int in, int out) {
  MDB_env *env = open_env("P", 0);
  put("P", env, "note1");
  say(out, 'r');
  hear(in);
  printf("P: before writing note3: new read txn sees txn %zu, newest meta page is txn %zu\n",
         lock_txnid(env), meta_txnid(env));
  put("P", env, "note3");
  say(out, 'd');
  hear(in);
  signal(SIGALRM, on_alarm);
  alarm(5);
  mdb_env_close(env);
  printf("P: closed\n");
}

static void run_a(int in, int out) {
  if (!nopause) { pause_fd_in = in; pause_fd_out = out; }
  MDB_env *env = open_env("A", MDB_RDONLY);
  if (nopause) { say(out, 'p'); hear(in); }
  printf("A: open (read-only) returned; new read txn sees txn %zu, newest meta page is txn %zu\n",
         lock_txnid(env), meta_txnid(env));
  fflush(stdout);
  say(out, 'o');
  hear(in);
  mdb_env_close(env);
}

static void run_q(int in, int out) {
  (void)in; (void)out;
  MDB_env *env = open_env("Q", 0);
  put("Q", env, "note2");
  mdb_env_close(env);
  printf("Q: closed, exiting 0\n");
}

static int check(void) {
  MDB_env *env = open_env("R", MDB_RDONLY);
  MDB_txn *txn; MDB_dbi dbi; int kept2 = 0;
  if (mdb_txn_begin(env, NULL, MDB_RDONLY, &txn) || mdb_dbi_open(txn, NULL, 0, &dbi)) exit(2);
  printf("R: fresh open, newest meta page is txn %zu:", meta_txnid(env));
  for (int i = 1; i <= 3; i++) {
    char key[8]; snprintf(key, sizeof key, "note%d", i);
    MDB_val k = {strlen(key), key}, v;
    int found = mdb_get(txn, dbi, &k, &v) == 0;
    if (i == 2) kept2 = found;
    printf(" %s %s", key, found ? "present" : "MISSING");
  }
  printf("\n");
  mdb_txn_abort(txn);
  mdb_env_close(env);
  return kept2;
}

int main(int argc, char **argv) {
  nopause = argc > 1 && strcmp(argv[1], "nopause") == 0;
  int p_to, p_from, a_to, a_from, q_to, q_from, st;
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (!mkdtemp(dir)) return 2;
  printf("%s, env %s\n", mdb_version(NULL, NULL, NULL), dir);

  pid_t p = child(&p_to, &p_from, run_p);
  if (hear(p_from) != 'r') return 2;                       /* P: note1 committed */
  pid_t a = child(&a_to, &a_from, run_a);
  if (hear(a_from) != 'p') return 2;                       /* A: meta read, held in mmap */
  printf(nopause ? "A: open finished (control run, no pause)\n"
                 : "A: paused inside mmap(data.mdb), meta pages already read\n");
  pid_t q = child(&q_to, &q_from, run_q);
  if (waitpid(q, &st, 0) != q || !WIFEXITED(st) || WEXITSTATUS(st) != 0) return 2;
  say(a_to, 'g');                                          /* go: A finishes its open */
  if (hear(a_from) != 'o') return 2;
  say(p_to, 'w');                                          /* P: write note3 */
  if (hear(p_from) != 'd') return 2;
  say(a_to, 'x'); waitpid(a, &st, 0);
  say(p_to, 'x'); waitpid(p, &st, 0);

  int kept = check();
  char f[sizeof dir + 16];
  snprintf(f, sizeof f, "%s/data.mdb", dir); unlink(f);
  snprintf(f, sizeof f, "%s/lock.mdb", dir); unlink(f);
  rmdir(dir);
  printf("RESULT: %s\n", kept ? "KEPT - note2 survived" : "LOST - note2 (acknowledged, fsynced commit) is gone");
  return kept ? 0 : 1;
}
