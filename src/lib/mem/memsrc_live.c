/*
 * memsrc_live.c - memory source for a live process, through /proc.
 *
 * Reads use process_vm_readv, which needs no stop and costs one system call
 * per range; where it is unavailable (ENOSYS in some sandboxes, EPERM under
 * some seccomp profiles) we fall back to pread on /proc/PID/mem, which has
 * the same permission rule (PTRACE_MODE_ATTACH_FSCREDS) but works in more
 * places.  Both may return short counts at the end of a mapping; a short
 * read is an unmapped error, never zero-filled.
 *
 * The executable is named "/proc/PID/exe": that link opens the very file
 * the process runs even when it was deleted or lives in another mount
 * namespace (a container), which a path from /proc/PID/maps would not.
 * For the same reason other mapped files are opened through
 * /proc/PID/map_files/START-END.
 *
 * Writes (force mode only) use process_vm_writev, then /proc/PID/mem.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "memsrc.h"
#include "ptrace.h"

/* process_vm_readv takes at most IOV_MAX (1024) iovecs per call. */
#define GH_LIVE_IOV 1024

typedef struct live_ctx {
	int pid;
	int memfd;          /* /proc/PID/mem, -1 until first needed */
	int use_vm;         /* process_vm_readv still worth trying */
	char comm[64];
	gh_err *err;        /* the session's, for stop/resume messages */
	gh_ptrace *pt;      /* non-NULL between stop and resume (ptrace.c) */
	double stop_begin;  /* the last stop's window (live_stop_window) */
	double stop_end;
} live_ctx;

static int errno_code(int e)
{
	switch (e) {
	case EPERM:
	case EACCES:
		return GOHEAP_EPERM;
	case ESRCH:
	case ENOENT:
		return GOHEAP_ENOPROC;
	case EFAULT:
	case EIO:
		return GOHEAP_EUNMAPPED;
	case ENOMEM:
		return GOHEAP_ENOMEM;
	default:
		return GOHEAP_EIO;
	}
}

static int open_memfd(live_ctx *c, int flags)
{
	char path[64];

	if (c->memfd >= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/mem", c->pid);
	c->memfd = open(path, flags | O_CLOEXEC);
	return c->memfd >= 0 ? 0 : errno_code(errno);
}

static int live_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	live_ctx *c = ctx;
	ssize_t n;
	int rc;

#ifdef HAVE_PROCESS_VM_READV
	if (c->use_vm) {
		struct iovec local = { buf, len };
		struct iovec remote = { (void *)(uintptr_t)addr, len };

		n = process_vm_readv(c->pid, &local, 1, &remote, 1, 0);
		if (n == (ssize_t)len)
			return 0;
		if (n >= 0 || errno == EFAULT)
			return GOHEAP_EUNMAPPED;
		if (errno == ESRCH)
			return GOHEAP_ENOPROC;
		/* ENOSYS, EPERM from seccomp: try /proc/PID/mem instead. */
		c->use_vm = 0;
	}
#endif
	rc = open_memfd(c, O_RDONLY);
	if (rc != 0)
		return rc;
	n = pread(c->memfd, buf, len, (off_t)addr);
	if (n == (ssize_t)len)
		return 0;
	if (n >= 0)
		return GOHEAP_EUNMAPPED;
	return errno_code(errno);
}

static int live_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	live_ctx *c = ctx;
	char path[64];
	ssize_t n;
	int fd;

#ifdef HAVE_PROCESS_VM_WRITEV
	{
		struct iovec local = { (void *)(uintptr_t)buf, len };
		struct iovec remote = { (void *)(uintptr_t)addr, len };

		n = process_vm_writev(c->pid, &local, 1, &remote, 1, 0);
		if (n == (ssize_t)len)
			return 0;
	}
#endif
	snprintf(path, sizeof(path), "/proc/%d/mem", c->pid);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno_code(errno);
	n = pwrite(fd, buf, len, (off_t)addr);
	close(fd);
	if (n == (ssize_t)len)
		return 0;
	return n >= 0 ? GOHEAP_EUNMAPPED : errno_code(errno);
}

/* Parse one /proc/PID/maps line; 0 on success. */
static int parse_maps_line(char *line, goheap_mapping *m, char *openp,
			   size_t openlen, int pid)
{
	unsigned long long start, end, off, inode;
	char perms[8];
	int pos = 0;
	char *path;
	size_t n;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %llu %n", &start, &end, perms,
		   &off, &inode, &pos) < 5)
		return -1;
	path = line + pos;
	n = strlen(path);
	while (n > 0 && (path[n - 1] == '\n' || path[n - 1] == ' '))
		path[--n] = '\0';
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->offset = off;
	m->inode = inode;
	memcpy(m->perms, perms, 4);
	m->perms[4] = '\0';
	m->path = path;
	m->open_path = NULL;
	if (inode != 0 && path[0] == '/') {
		snprintf(openp, openlen, "/proc/%d/map_files/%llx-%llx", pid,
			 start, end);
		m->open_path = openp;
	}
	return 0;
}

static int live_mappings(void *ctx, goheap_mapping_cb cb, void *payload)
{
	live_ctx *c = ctx;
	char path[64], openp[96];
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", c->pid);
	f = fopen(path, "re");
	if (f == NULL)
		return errno_code(errno);
	while (getline(&line, &cap, f) > 0) {
		goheap_mapping m;

		if (parse_maps_line(line, &m, openp, sizeof(openp), c->pid) != 0)
			continue;
		rc = cb(&m, payload);
		if (rc != 0)
			break;
	}
	free(line);
	fclose(f);
	return rc;
}

static int live_executable(void *ctx, char *buf, size_t len)
{
	live_ctx *c = ctx;
	int n = snprintf(buf, len, "/proc/%d/exe", c->pid);

	return (n < 0 || (size_t)n >= len) ? GOHEAP_EINVAL : 0;
}

static int live_describe(void *ctx, char *buf, size_t len)
{
	live_ctx *c = ctx;

	snprintf(buf, len, "live process %d (%s)", c->pid, c->comm);
	return 0;
}

static void live_close(void *ctx)
{
	live_ctx *c = ctx;

	if (c == NULL)
		return;
	gh_ptrace_resume(c->pt, NULL);   /* never leave the target stopped */
	if (c->memfd >= 0)
		close(c->memfd);
	free(c);
}

/* Force mode: every thread stopped with PTRACE_SEIZE (see ptrace.c). */
static int live_stop(void *ctx)
{
	live_ctx *c = ctx;
	int rc;

	if (c->pt != NULL)
		return gh_errf(c->err, GOHEAP_EINVAL, "already stopped");
	rc = gh_ptrace_stop(&c->pt, c->pid, c->err);
	c->stop_begin = c->stop_end = rc == 0 ?
		gh_ptrace_stopped_at(c->pt) : 0;
	return rc;
}

static int live_resume(void *ctx)
{
	live_ctx *c = ctx;
	gh_ptrace *pt = c->pt;
	int rc;

	c->pt = NULL;
	rc = gh_ptrace_resume(pt, c->err);
	c->stop_end = gh_now();
	return rc;
}

static int live_stop_window(void *ctx, double *begin, double *end)
{
	const live_ctx *c = ctx;

	if (c == NULL || c->stop_begin == 0)
		return -1;
	*begin = c->stop_begin;
	*end = c->stop_end;
	return 0;
}

static int live_stopped_threads(void *ctx, gh_thread_regs **regs, size_t *n)
{
	const live_ctx *c = ctx;
	gh_thread_regs *r;
	size_t i, k = 0, cap = 0;
	int64_t tid;
	uint64_t pc, sp;
	int rc;

	*regs = NULL;
	*n = 0;
	/* not -1: that is GOHEAP_ENOMEM, which the caller must tell apart */
	if (c == NULL || c->pt == NULL)
		return GOHEAP_EUNSUPPORTED;
	while (gh_ptrace_thread_regs(c->pt, cap, &tid, &pc, &sp) >= 0)
		cap++;
	r = gh_calloc(cap ? cap : 1, sizeof(*r));
	if (r == NULL)
		return GOHEAP_ENOMEM;
	for (i = 0; i < cap; i++) {
		rc = gh_ptrace_thread_regs(c->pt, i, &tid, &pc, &sp);
		if (rc != 0)
			continue;
		r[k].tid = tid;
		r[k].pc = pc;
		r[k].sp = sp;
		k++;
	}
	*regs = r;
	*n = k;
	return 0;
}

static int live_readv(void *ctx, const uint64_t *addrs, const size_t *lens,
		      size_t n, unsigned char *out, unsigned char *ok)
{
#ifdef HAVE_PROCESS_VM_READV
	const live_ctx *c = ctx;
	struct iovec lv[GH_LIVE_IOV], rv[GH_LIVE_IOV];
	size_t i = 0, k, j, off = 0;
	ssize_t got;

	if (c == NULL || !c->use_vm)
		return -1;
	memset(ok, 0, n);
	while (i < n) {
		size_t base = i;

		for (k = 0; i < n && k < GH_LIVE_IOV; i++, k++) {
			lv[k].iov_base = out + off;
			lv[k].iov_len = lens[i];
			rv[k].iov_base = (void *)(uintptr_t)addrs[i];
			rv[k].iov_len = lens[i];
			off += lens[i];
		}
		/* a call stops at the first range it cannot read in full:
		 * that one stays unread, the next call starts after it */
		for (j = 0; j < k;) {
			got = process_vm_readv(c->pid, lv + j, k - j, rv + j,
					       k - j, 0);
			if (got < 0) {
				if (errno == ESRCH)
					return GOHEAP_ENOPROC;
				if (errno != EFAULT && base == 0 && j == 0)
					return -1;   /* ENOSYS, EPERM */
				got = 0;
			}
			while (j < k && (size_t)got >= lv[j].iov_len) {
				got -= (ssize_t)lv[j].iov_len;
				ok[base + j++] = 1;
			}
			if (j < k)
				j++;
		}
	}
	return 0;
#else
	(void)ctx;
	(void)addrs;
	(void)lens;
	(void)n;
	(void)out;
	(void)ok;
	return -1;
#endif
}

static int live_thread_stacks(void *ctx, goheap_stack_cb cb, void *payload)
{
	live_ctx *c = ctx;

	if (c->pt == NULL)
		return gh_errf(c->err, GOHEAP_EINVAL, "not stopped");
	return gh_ptrace_thread_stacks(c->pt, NULL, cb, payload, c->err);
}

static int live_thread_stacks_sw(void *ctx, const gh_gswitch *sw,
			  goheap_stack_cb cb, void *payload)
{
	live_ctx *c = ctx;

	if (c->pt == NULL)
		return gh_errf(c->err, GOHEAP_EINVAL, "not stopped");
	return gh_ptrace_thread_stacks(c->pt, sw, cb, payload, c->err);
}

const goheap_memsrc_ops gh_live_ops = {
	.version = GOHEAP_MEMSRC_OPS_VERSION,
	.read = live_read,
	.mappings = live_mappings,
	.executable = live_executable,
	.target_info = NULL,
	.write = live_write,
	.describe = live_describe,
	.close = live_close,
	.stop = live_stop,
	.resume = live_resume,
	.thread_stacks = live_thread_stacks,
};

const gh_memsrc_caps gh_live_caps = {
	.readv = live_readv,
	.stop_window = live_stop_window,
	.stopped_threads = live_stopped_threads,
	.core_threads = NULL,
	.thread_stacks_sw = live_thread_stacks_sw,
	.concurrent_reads = 1,     /* process_vm_readv and pread */
};

const gh_memsrc_caps gh_no_caps = { 0 };

/*
 * Check the process exists and that we may read it, and explain which rule
 * refuses us: the kernel applies ptrace access mode checks (same uid and not
 * dumpable-restricted, or CAP_SYS_PTRACE, and Yama's ptrace_scope).
 */
int gh_live_new(void **out_ctx, int pid, gh_err *err)
{
	live_ctx *c = NULL;
	char path[64], yama[8] = "";
	unsigned char probe;
	int rc, fd;
	FILE *f;
	ssize_t n;

	*out_ctx = NULL;
	if (pid <= 0)
		return gh_errf(err, GOHEAP_EINVAL, "invalid process id %d", pid);
	snprintf(path, sizeof(path), "/proc/%d", pid);
	if (access(path, F_OK) != 0)
		return gh_errf(err, GOHEAP_ENOPROC, "process %d: no such process",
			       pid);
	c = gh_calloc(1, sizeof(*c));
	if (c == NULL)
		return gh_errf(err, GOHEAP_ENOMEM, "out of memory");
	c->pid = pid;
	c->err = err;
	c->memfd = -1;
	c->use_vm = 1;
	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, c->comm, sizeof(c->comm) - 1);
		if (n > 0 && c->comm[n - 1] == '\n')
			n--;
		c->comm[n > 0 ? n : 0] = '\0';
		close(fd);
	}
	rc = open_memfd(c, O_RDONLY);
	if (rc == GOHEAP_EPERM) {
		f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
		if (f != NULL) {
			if (fgets(yama, sizeof(yama), f) == NULL)
				yama[0] = '\0';
			fclose(f);
		}
		yama[strcspn(yama, "\n")] = '\0';
		gh_errf(err, rc,
			"process %d: permission denied reading its memory: run "
			"as root or as the same user with CAP_SYS_PTRACE%s%s%s",
			pid, yama[0] && yama[0] != '0' ?
			" (kernel.yama.ptrace_scope=" : "",
			yama[0] && yama[0] != '0' ? yama : "",
			yama[0] && yama[0] != '0' ? ")" : "");
		goto fail;
	}
	if (rc != 0) {
		gh_errf(err, rc, "process %d: cannot open its memory: %s", pid,
			goheap_strerror(rc));
		goto fail;
	}
	(void)probe;
	*out_ctx = c;
	return 0;
fail:
	live_close(c);
	return rc;
}
