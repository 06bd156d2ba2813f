/*
 * test_proc.c - running the system's programs (src/proc.c), as teil-check
 * --diff (R-CG-16) and the autotuner (R-TUNE-3, R-TUNE-4) do: the exit status,
 * the output in the log, a program that cannot be started, and the kill of a
 * program (and its children) that outlives its time limit.
 */
#include "unit.h"

#include <time.h>
#include <unistd.h>

#include "proc.h"

static char logpath[64];

static int setup(void **state) {
  (void)state;
  snprintf(logpath, sizeof logpath, "/tmp/teil_test_proc.XXXXXX");
  int fd = mkstemp(logpath);
  if (fd < 0)
    return -1;
  close(fd);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  unlink(logpath);
  return 0;
}

/* The whole log, at most n - 1 bytes. */
static void read_log(char *buf, size_t n) {
  FILE *f = fopen(logpath, "r");
  size_t len = f ? fread(buf, 1, n - 1, f) : 0;
  buf[len] = 0;
  if (f)
    fclose(f);
}

static void test_status_and_log(void **state) {
  (void)state;
  char buf[256];
  char *ok[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
  for (int limit = 0; limit < 2; limit++) { /* waited for, and with a time limit */
    assert_int_equal(proc_run(ok, logpath, limit ? 30 : 0), 3);
    read_log(buf, sizeof buf);
    assert_string_equal(buf, "out\nerr\n");
  }
  char *zero[] = {"true", NULL};
  assert_int_equal(proc_run(zero, logpath, 0), 0);
  read_log(buf, sizeof buf);
  assert_string_equal(buf, ""); /* the log is truncated, not appended to */
}

static void test_not_started_and_killed(void **state) {
  (void)state;
  char *none[] = {"/nonexistent/teil-no-such-program", NULL};
  assert_int_equal(proc_run(none, logpath, 0), 127);
  assert_int_equal(proc_run(none, logpath, 5), 127);
  char *sig[] = {"sh", "-c", "kill -9 $$", NULL};
  assert_int_equal(proc_run(sig, logpath, 0), -1);
  /* a shell whose child would sleep 30 s: the whole group goes after 0.3 s */
  char cmd[128];
  snprintf(cmd, sizeof cmd, "sleep 30 & echo $! >%s.pid; wait", logpath);
  char *slow[] = {"sh", "-c", cmd, NULL};
  double t0 = proc_now();
  assert_int_equal(proc_run(slow, logpath, 0.3), -2);
  double took = proc_now() - t0;
  assert_true(took >= 0.3 && took < 10);
  char pidfile[80];
  snprintf(pidfile, sizeof pidfile, "%s.pid", logpath);
  FILE *f = fopen(pidfile, "r");
  int pid = 0;
  assert_non_null(f);
  assert_int_equal(fscanf(f, "%d", &pid), 1);
  fclose(f);
  unlink(pidfile);
  bool gone = false;                    /* no such process, or a zombie not yet reaped */
  for (int i = 0; i < 200 && !gone; i++) {
    char path[64], stat[256] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *sf = fopen(path, "r");
    gone = !sf || !fgets(stat, sizeof stat, sf) || strstr(stat, ") Z ") != NULL;
    if (sf)
      fclose(sf);
    struct timespec ts = {0, 10000000};
    if (!gone)
      nanosleep(&ts, NULL);
  }
  assert_true(gone);
}

static void test_first_line(void **state) {
  (void)state;
  char buf[8];
  char *two[] = {"sh", "-c", "echo first-line-long; echo second; echo x >&2", NULL};
  assert_int_equal(proc_first_line(two, buf, sizeof buf), 0);
  assert_string_equal(buf, "first-l"); /* cut to the buffer */
  char line[64];
  char *st[] = {"sh", "-c", "printf 'a b\\r\\nc'; exit 4", NULL};
  assert_int_equal(proc_first_line(st, line, sizeof line), 4);
  assert_string_equal(line, "a b");
  char *none[] = {"/nonexistent/teil-no-such-program", NULL};
  assert_int_equal(proc_first_line(none, line, sizeof line), 127);
  assert_string_equal(line, "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_status_and_log, setup, teardown),
      cmocka_unit_test_setup_teardown(test_not_started_and_killed, setup, teardown),
      cmocka_unit_test(test_first_line),
  };
  return RUN_TESTS(tests);
}
