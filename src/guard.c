/*
 * guard.c - mapped input files that another program cuts short.
 *
 * An input file is mapped, not copied.  When another program truncates it
 * while it is read, touching a page past the new end raises SIGBUS, which
 * kills the process.  While a mapping is guarded, a handler catches that
 * fault, puts zero-filled pages over the rest of the mapping and returns:
 * the instruction runs again on zeros, the parser goes on (every parser
 * takes any bytes), and the reader, asking af_guard_hit() when the parse
 * is over, reports the file as changed instead of what the zeros gave.
 * No jump leaves the parser, so nothing it holds is lost, and faults on
 * any thread of a parse (the two-core reader) are handled alike.
 *
 * The handler is installed once, by the first guarded mapping, and hands
 * every fault outside a guarded mapping to the handler that was there
 * before it (for the default action: the fault happens again and kills).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

#define AF_GUARD_SLOTS 64

/* A guarded range [start, end), whole pages.  `seq` is odd while the slot
 * changes, so the handler never reads a start and an end of two mappings. */
typedef struct af_guard_slot {
	atomic_uint busy;
	atomic_uint seq;
	_Atomic uintptr_t start, end;
	atomic_uint hit;
} af_guard_slot;

static af_guard_slot af_slots[AF_GUARD_SLOTS];
static struct sigaction af_old_bus;
static uintptr_t af_page;
static int af_installed;
static pthread_once_t af_once = PTHREAD_ONCE_INIT;

/* Zero pages over [fault's page, end) of the slot holding `a`; 1 when done. */
static int af_guard_patch(uintptr_t a)
{
	size_t i;

	for (i = 0; i < AF_GUARD_SLOTS; i++) {
		af_guard_slot *s = &af_slots[i];
		unsigned seq = atomic_load(&s->seq);
		uintptr_t start, end, page;

		if (seq & 1)
			continue;
		start = atomic_load(&s->start);
		end = atomic_load(&s->end);
		if (atomic_load(&s->seq) != seq || !start || a < start || a >= end)
			continue;
		page = a & ~(af_page - 1);
		if (mmap((void *)page, end - page, PROT_READ,
		         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
			return 0;
		atomic_store(&s->hit, 1);
		return 1;
	}
	return 0;
}

static void af_guard_handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	if (si && si->si_code > 0 && af_guard_patch((uintptr_t)si->si_addr)) {
		errno = saved;
		return;
	}
	errno = saved;
	if (af_old_bus.sa_flags & SA_SIGINFO) {
		af_old_bus.sa_sigaction(sig, si, uc);
	} else if (af_old_bus.sa_handler != SIG_DFL && af_old_bus.sa_handler != SIG_IGN) {
		af_old_bus.sa_handler(sig);
	} else if (af_old_bus.sa_handler == SIG_IGN && (!si || si->si_code <= 0)) {
		/* sent by kill() and ignored before: still ignored */
	} else {
		/* the default action: a fault happens again when this returns,
		 * a signal sent by kill() is sent again */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		sigaction(sig, &dfl, NULL);
		if (!si || si->si_code <= 0)
			raise(sig);
	}
}

static void af_guard_install(void)
{
	struct sigaction sa;
	long page = sysconf(_SC_PAGESIZE);

	if (page <= 0 || (page & (page - 1)))
		return;
	af_page = (uintptr_t)page;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = af_guard_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &af_old_bus) == 0)
		af_installed = 1;
}

int af_guard_add(const void *p, size_t len)
{
	size_t i;

	pthread_once(&af_once, af_guard_install);
	if (!af_installed || len == 0)
		return -1;
	for (i = 0; i < AF_GUARD_SLOTS; i++) {
		af_guard_slot *s = &af_slots[i];
		unsigned zero = 0;
		uintptr_t start = (uintptr_t)p;

		if (!atomic_compare_exchange_strong(&s->busy, &zero, 1))
			continue;
		atomic_fetch_add(&s->seq, 1);
		atomic_store(&s->hit, 0);
		atomic_store(&s->start, start);
		atomic_store(&s->end, (start + len + af_page - 1) & ~(af_page - 1));
		atomic_fetch_add(&s->seq, 1);
		return (int)i;
	}
	return -1;
}

int af_guard_hit(int slot)
{
	return slot >= 0 && atomic_load(&af_slots[slot].hit) != 0;
}

void af_guard_remove(int slot)
{
	af_guard_slot *s;

	if (slot < 0)
		return;
	s = &af_slots[slot];
	atomic_fetch_add(&s->seq, 1);
	atomic_store(&s->start, 0);
	atomic_store(&s->end, 0);
	atomic_fetch_add(&s->seq, 1);
	atomic_store(&s->busy, 0);
}
