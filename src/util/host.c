/* host.c - what the library asks of the host: its clock and its memory. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

double ck__seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

int ck__setting_off(const char *variable) {
  const char *setting = getenv(variable);
  return setting && strcmp(setting, "0") == 0;
}

int ck__memory_exceeded(double bytes, unsigned long long memory) {
  return memory > 0 && bytes > 0.9 * (double)memory;
}

unsigned long long ck__host_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page_size > 0
             ? (unsigned long long)pages * (unsigned long long)page_size
             : 0;
}
