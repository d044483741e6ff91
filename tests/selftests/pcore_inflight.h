/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the tests of calls in flight inside direct-call probes
 * (pcore_direct, pcore_glob): a wait that is not a nanosleep() (which
 * the tests time), the kernel log awaited, a reader blocked in
 * pipe_read(), a stack's lines.
 */
#ifndef PCORE_INFLIGHT_H
#define PCORE_INFLIGHT_H

#include <poll.h>
#include <pthread.h>
#include "pcore_lib.h"

/* Wait @ms milliseconds without nanosleep() (which is timed here). */
static inline void wait_ms(int ms)
{
	poll(NULL, 0, ms);
}

/*
 * The kernel log from @fd until a line has @what, for up to 2 s: 0, or
 * -1 when none came (@log has what did).
 */
static inline int kmsg_wait(int fd, char *log, size_t len, const char *what)
{
	size_t used = 0;
	int i;

	log[0] = '\0';
	for (i = 0; i < 200; i++) {
		if (used + 1 < len)
			kmsg_collect(fd, log + used, len - used);
		used = strlen(log);
		if (strstr(log, what))
			return 0;
		wait_ms(10);
	}
	return -1;
}

/* The line after the first one of @text from @from that has @what. */
static inline const char *after(const char *from, const char *what)
{
	const char *p = from ? strstr(from, what) : NULL;

	return p ? strchrnul(p, '\n') : NULL;
}

/* A reader blocked in pipe_read(): what its read() returned. */
struct reader {
	int fd;
	ssize_t n;
	char buf[16];
	pthread_t t;
};

static inline void *reader(void *arg)
{
	struct reader *r = arg;
	ssize_t n = read(r->fd, r->buf, sizeof(r->buf));

	__atomic_store_n(&r->n, n, __ATOMIC_RELEASE);
	return NULL;
}

/* A reader blocked in pipe_read() until reader_end() writes. */
static inline int reader_start(struct reader *r, int pipefd[2])
{
	if (pipe(pipefd))
		return errno;
	r->fd = pipefd[0];
	r->n = -2;
	return pthread_create(&r->t, NULL, reader, r);
}

/* Still blocked? Then write, and the bytes it read (5), or -1. */
static inline int reader_end(struct reader *r, int pipefd[2])
{
	bool blocked = __atomic_load_n(&r->n, __ATOMIC_ACQUIRE) == -2;

	if (write(pipefd[1], "hello", 5) != 5)
		return -1;
	pthread_join(r->t, NULL);
	close(pipefd[0]);
	close(pipefd[1]);
	return blocked && r->n == 5 && !memcmp(r->buf, "hello", 5) ? 5 : -1;
}

#endif
