/*
 * proc.c - running the system's programs (proc.h).
 */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

double proc_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int proc_run(char *const argv[], const char *log, double timeout) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0)
    return -1;
  if (pid == 0) {
    if (timeout > 0)
      setpgid(0, 0);
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
      close(fd);
    }
    execvp(argv[0], argv);
    _exit(127);
  }
  int st;
  if (timeout <= 0) {
    while (waitpid(pid, &st, 0) < 0)
      if (errno != EINTR)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  }
  setpgid(pid, pid);
  double end = proc_now() + timeout;
  for (;;) {
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid)
      return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (r < 0 && errno != EINTR)
      return -1;
    if (proc_now() > end) {
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      return -2;
    }
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
  }
}

int proc_first_line(char *const argv[], char *buf, size_t n) {
  buf[0] = 0;
  int fd[2];
  if (pipe(fd))
    return 127;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return 127;
  }
  if (pid == 0) {
    dup2(fd[1], 1);
    close(fd[0]);
    close(fd[1]);
    int nul = open("/dev/null", O_WRONLY);
    if (nul >= 0)
      dup2(nul, 2);
    execvp(argv[0], argv);
    _exit(127);
  }
  close(fd[1]);
  size_t len = 0;
  char tmp[512];
  ssize_t k;
  while ((k = read(fd[0], tmp, sizeof tmp)) > 0)
    for (ssize_t i = 0; i < k; i++)
      if (len + 1 < n)
        buf[len++] = tmp[i];
  buf[len] = 0;
  buf[strcspn(buf, "\r\n")] = 0;
  close(fd[0]);
  int st;
  if (waitpid(pid, &st, 0) < 0)
    return 127;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 127;
}
