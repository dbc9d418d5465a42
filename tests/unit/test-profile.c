// SPDX-License-Identifier: MIT
/*
 * Profiles: what the writer writes the reader reads back, record for
 * record; a file cut anywhere or damaged anywhere reads up to its last
 * good chunk and says why; symbols of a workload resolve both ways; a
 * sampling session on a breakpoint gives one sample per call.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "host.h"
#include "skip.h"

#include <hpmon/record.h>
#include <hpmon/symbols.h>

#define NR_SAMPLES 5000

static const struct hpm_profile_event events[3] = {
	{ .name = "cycles", .type = 0, .config = 0, .period = 1000003, .trigger = true,
	  .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN,
	  .leader = 0, .group_size = 2 },
	{ .name = "instructions", .type = 0, .config = 1, .leader = 0, .group_size = 2 },
	{ .name = "cpu-clock", .type = 1, .config = 0, .period = 4000, .freq = true,
	  .trigger = true, .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_STACK_USER |
	  PERF_SAMPLE_REGS_USER, .leader = 2, .group_size = 1 },
};

/* The i-th record of the test stream, deterministic. */
static void make_rec(unsigned i, struct hpm_prec *p, uint64_t *vals, uint64_t *chain,
		     uint64_t *regs, unsigned char *stack)
{
	memset(p, 0, sizeof(*p));
	if (i % 100 == 1) {
		p->type = HPM_PREC_MMAP;
		p->mmap = (struct hpm_mmap_rec){ .pid = 100, .tid = 100 + i % 3, .time = 1000 * i,
			.start = 0x400000 + i * 4096ull, .len = 8192, .pgoff = 4096, .prot = 5,
			.flags = 2, .build_id_len = 20, .filename = "/usr/lib/libtest.so" };
		for (int k = 0; k < 20; k++)
			p->mmap.build_id[k] = (uint8_t)(k * 7 + i);
		return;
	}
	if (i % 100 == 2) {
		p->type = HPM_PREC_COMM;
		p->comm = (struct hpm_comm_rec){ 100, 101, 1000 * i, i % 200 == 2, "worker" };
		return;
	}
	if (i % 100 == 3) {
		p->type = (i / 100) % 2 ? HPM_PREC_FORK : HPM_PREC_EXIT;
		p->task = (struct hpm_task_rec){ 100, 99, 100 + (pid_t)i, 99, 1000 * i };
		return;
	}
	if (i % 100 == 4) {
		p->type = HPM_PREC_LOST + (i / 100) % 3;
		p->lost = (struct hpm_lost_rec){ 1000 * i, (i / 100) % 4 == 3 ? UINT32_MAX : 2, i };
		return;
	}
	struct hpm_sample *s = &p->sample;
	p->type = HPM_PREC_SAMPLE;
	s->ev = i % 5 == 0 ? 2 : 0;
	s->cpu = i % 2;
	s->pid = 100;
	s->tid = 100 + (pid_t)(i % 3);
	s->time = 1000ull * i + (i % 7) * 13; /* not monotonic across CPUs */
	s->ip = 0x401000 + (i * 37) % 4096;
	s->period = s->ev == 0 ? 1000003 : 250000 + i % 11;
	s->mode = i % 9 == 0 ? HPM_MODE_KERNEL : HPM_MODE_USER;
	if (s->ev == 0) {
		vals[0] = 1000003ull * i;
		vals[1] = 900000ull * i + i % 17;
		s->nr_values = 2;
		s->values = vals;
		s->nr_chain = 1 + i % 6;
		chain[0] = (uint64_t)-512; /* PERF_CONTEXT_USER */
		for (unsigned k = 1; k < s->nr_chain; k++)
			chain[k] = 0x402000 + k * 16 + (k == 1 ? i % 3 : 0);
		s->chain = chain;
	} else {
		s->regs_abi = 2;
		s->nr_regs = 3;
		regs[0] = i;
		regs[1] = 0x7ffd0000 + i;
		regs[2] = ~0ull - i;
		s->regs = regs;
		s->stack_len = i % 40;
		for (unsigned k = 0; k < s->stack_len; k++)
			stack[k] = (unsigned char)(k + i);
		s->stack = stack;
	}
}

static void expect_same(const struct hpm_prec *a, const struct hpm_prec *b)
{
	assert_int_equal(a->type, b->type);
	switch (a->type) {
	case HPM_PREC_SAMPLE: {
		const struct hpm_sample *x = &a->sample, *y = &b->sample;
		assert_int_equal(x->ev, y->ev);
		assert_int_equal(x->cpu, y->cpu);
		assert_int_equal(x->pid, y->pid);
		assert_int_equal(x->tid, y->tid);
		assert_int_equal(x->time, y->time);
		assert_int_equal(x->ip, y->ip);
		assert_int_equal(x->period, y->period);
		assert_int_equal(x->mode, y->mode);
		assert_int_equal(x->nr_values, y->nr_values);
		assert_memory_equal(x->values, y->values, x->nr_values * 8);
		assert_int_equal(x->nr_chain, y->nr_chain);
		assert_memory_equal(x->chain, y->chain, x->nr_chain * 8);
		assert_int_equal(x->nr_regs, y->nr_regs);
		assert_memory_equal(x->regs, y->regs, x->nr_regs * 8);
		assert_int_equal(x->stack_len, y->stack_len);
		assert_memory_equal(x->stack, y->stack, x->stack_len);
		break;
	}
	case HPM_PREC_MMAP:
		assert_int_equal(a->mmap.start, b->mmap.start);
		assert_int_equal(a->mmap.len, b->mmap.len);
		assert_int_equal(a->mmap.pgoff, b->mmap.pgoff);
		assert_int_equal(a->mmap.time, b->mmap.time);
		assert_int_equal(a->mmap.tid, b->mmap.tid);
		assert_int_equal(a->mmap.build_id_len, b->mmap.build_id_len);
		assert_memory_equal(a->mmap.build_id, b->mmap.build_id, 20);
		assert_string_equal(a->mmap.filename, b->mmap.filename);
		break;
	case HPM_PREC_COMM:
		assert_string_equal(a->comm.comm, b->comm.comm);
		assert_int_equal(a->comm.exec, b->comm.exec);
		assert_int_equal(a->comm.tid, b->comm.tid);
		break;
	case HPM_PREC_FORK:
	case HPM_PREC_EXIT:
		assert_memory_equal(&a->task, &b->task, sizeof(a->task));
		break;
	default:
		assert_int_equal(a->lost.time, b->lost.time);
		assert_int_equal(a->lost.ev, b->lost.ev);
		assert_int_equal(a->lost.count, b->lost.count);
	}
}

/* Write the test stream to a memory file; returns its bytes. */
static unsigned char *write_stream(size_t *len, bool finish, size_t chunk)
{
	char *buf = NULL;
	size_t blen = 0;
	int fd = memfd_create("prof", 0);
	assert_true(fd >= 0);
	struct hpm_profile_meta m = { .sz = sizeof(m), .command = "test cmd", .host = "h",
				      .arch = "x86_64", .cpu_model = "model", .kernel = "6.x",
				      .start_unix_ns = 42, .nr_events = 3, .events = events,
				      .callchain = 1, .page_size = 4096 };
	struct hpm_profile_writer_opts wo = { .sz = sizeof(wo), .chunk_bytes = chunk };
	struct hpm_profile_writer *w = hpm_profile_writer__new(dup(fd), &m, &wo);
	assert_non_null(w);
	uint64_t vals[2], chain[8], regs[3];
	unsigned char stack[64];
	for (unsigned i = 0; i < NR_SAMPLES; i++) {
		struct hpm_prec p;
		make_rec(i, &p, vals, chain, regs, stack);
		assert_int_equal(hpm_profile_writer__add(w, &p), 0);
	}
	struct hpm_profile_totals t = { .samples = 7, .lost = 8, .throttled = 9,
					.duration_ns = 10, .exit_status = 3 };
	if (finish)
		assert_int_equal(hpm_profile_writer__close(w, &t), 0);
	else {
		assert_int_equal(hpm_profile_writer__flush(w), 0);
		hpm_profile_writer__free(w);
	}
	blen = (size_t)lseek(fd, 0, SEEK_END);
	buf = malloc(blen);
	assert_non_null(buf);
	assert_int_equal(pread(fd, buf, blen, 0), (ssize_t)blen);
	close(fd);
	*len = blen;
	return (unsigned char *)buf;
}

/* Read every record of @buf; checks each against the stream; returns count. */
static unsigned read_all(const unsigned char *buf, size_t len, bool check,
			 struct hpm_profile_status *st)
{
	struct hpm_profile *p;
	struct hpm_prec r, want;
	uint64_t vals[2], chain[8], regs[3];
	unsigned char stack[64];
	unsigned n = 0;

	if (hpm_profile__open_mem(buf, len, &p))
		return UINT32_MAX;
	while (hpm_profile__next(p, &r) > 0) {
		if (check) {
			make_rec(n, &want, vals, chain, regs, stack);
			expect_same(&want, &r);
		}
		n++;
	}
	*st = *hpm_profile__status(p);
	hpm_profile__free(p);
	return n;
}

static void test_roundtrip(void **state)
{
	(void)state;
	size_t len;
	unsigned char *buf = write_stream(&len, true, 8192);
	struct hpm_profile *p;
	struct hpm_profile_status st;

	assert_int_equal(hpm_profile__open_mem(buf, len, &p), 0);
	const struct hpm_profile_meta *m = hpm_profile__meta(p);
	assert_string_equal(m->command, "test cmd");
	assert_string_equal(m->cpu_model, "model");
	assert_int_equal(m->nr_events, 3);
	assert_string_equal(m->events[1].name, "instructions");
	assert_int_equal(m->events[1].leader, 0);
	assert_int_equal(m->events[0].group_size, 2);
	assert_true(m->events[2].freq);
	assert_int_equal(m->start_unix_ns, 42);
	hpm_profile__free(p);

	assert_int_equal(read_all(buf, len, true, &st), NR_SAMPLES);
	assert_true(st.complete);
	assert_false(st.truncated);
	assert_false(st.corrupt);
	assert_int_equal(st.totals.samples, 7);
	assert_int_equal(st.totals.exit_status, 3);
	assert_true(st.chunks > 3); /* small chunks: the deltas restart in each */
	free(buf);
}

/* A profile with header @m and no records, opened; the caller frees both. */
static struct hpm_profile *header_only(const struct hpm_profile_meta *m, unsigned char **buf)
{
	int fd = memfd_create("prof", 0);
	assert_true(fd >= 0);
	struct hpm_profile_writer *w = hpm_profile_writer__new(dup(fd), m, NULL);
	assert_non_null(w);
	assert_int_equal(hpm_profile_writer__close(w, NULL), 0);
	size_t len = (size_t)lseek(fd, 0, SEEK_END);
	*buf = malloc(len);
	assert_non_null(*buf);
	assert_int_equal(pread(fd, *buf, len, 0), (ssize_t)len);
	close(fd);
	struct hpm_profile *p;
	assert_int_equal(hpm_profile__open_mem(*buf, len, &p), 0);
	return p;
}

/* The job's rank, size and id (mpirun, srun) read back; a writer built
 * before them (a smaller sz) writes none, and its profile reads as
 * outside a job: rank 0 of an old profile would be a lie. */
static void test_job_fields(void **state)
{
	(void)state;
	unsigned char *buf;
	struct hpm_profile_meta m = { .sz = sizeof(m), .command = "c", .host = "node7",
				      .nr_events = 3, .events = events, .has_rank = true,
				      .rank = 0, .job_size = 64, .job = "4242" };
	struct hpm_profile *p = header_only(&m, &buf);
	const struct hpm_profile_meta *r = hpm_profile__meta(p);
	assert_true(r->has_rank);
	assert_int_equal(r->rank, 0);
	assert_int_equal(r->job_size, 64);
	assert_string_equal(r->job, "4242");
	assert_string_equal(r->host, "node7");
	hpm_profile__free(p);
	free(buf);

	m.sz = offsetof(struct hpm_profile_meta, has_rank);
	m.rank = 5;
	p = header_only(&m, &buf);
	r = hpm_profile__meta(p);
	assert_false(r->has_rank);
	assert_int_equal(r->job_size, 0);
	assert_string_equal(r->job, "");
	hpm_profile__free(p);
	free(buf);
}

/* Cut anywhere: the records before the cut's chunk, never more, never a crash. */
static void test_truncated(void **state)
{
	(void)state;
	size_t len;
	unsigned char *buf = write_stream(&len, true, 4096);
	struct hpm_profile_status st;
	unsigned last = 0;

	for (size_t cut = 0; cut < len; cut += (cut < 200 ? 1 : 97)) {
		unsigned char *c = malloc(cut ? cut : 1);
		memcpy(c, buf, cut);
		unsigned n = read_all(c, cut, true, &st);
		if (n != UINT32_MAX) {
			assert_false(st.complete);
			assert_true(st.truncated);
			assert_true(st.what[0]);
			assert_true(n >= last); /* more file, never fewer records */
			last = n;
		}
		free(c);
	}
	free(buf);
}

/* A killed writer: no end chunk, every flushed record readable. */
static void test_unfinished(void **state)
{
	(void)state;
	size_t len;
	unsigned char *buf = write_stream(&len, false, 8192);
	struct hpm_profile_status st;
	assert_int_equal(read_all(buf, len, true, &st), NR_SAMPLES);
	assert_false(st.complete);
	assert_true(st.truncated);
	assert_non_null(strstr(st.what, "without its end record"));
	free(buf);
}

static void test_corrupt(void **state)
{
	(void)state;
	size_t len;
	unsigned char *buf = write_stream(&len, true, 8192);
	struct hpm_profile_status st;
	unsigned seed = 1;

	for (int i = 0; i < 300; i++) {
		unsigned char *c = malloc(len);
		memcpy(c, buf, len);
		for (int k = 0; k < 1 + i % 3; k++) {
			seed = seed * 1103515245 + 12345;
			c[(seed >> 8) % len] ^= (unsigned char)(1 + (seed >> 3) % 255);
		}
		unsigned n = read_all(c, len, false, &st);
		assert_true(n == UINT32_MAX || n <= NR_SAMPLES);
		free(c);
	}
	/* a checksum failure is named */
	unsigned char *c = malloc(len);
	memcpy(c, buf, len);
	c[len / 2] ^= 0x40;
	read_all(c, len, false, &st);
	assert_true(st.corrupt || st.truncated);
	assert_false(st.complete);
	/* not a profile, newer major version */
	struct hpm_profile *p;
	assert_int_equal(hpm_profile__open_mem("not a profile at all, no", 24, &p), -EBADMSG);
	memcpy(c, buf, len);
	c[8] = 9;
	assert_int_equal(hpm_profile__open_mem(c, len, &p), -EPROTO);
	free(c);
	free(buf);
}

/* ---- symbols of a workload, both ways ---- */

static void test_symbols(void **state)
{
	(void)state;
	struct hpm_dso *d = hpm_dso__open(HPM_TEST_WORKLOADS "/lines", NULL);
	struct hpm_symbol s;
	uint64_t addr, size, off, back, addrs[16];
	size_t nr;
	uint8_t id[20];

	assert_non_null(d);
	assert_true(hpm_dso__has_symbols(d));
	assert_true(hpm_dso__has_lines(d));
	assert_int_equal(hpm_dso__build_id(d, id, sizeof(id)), 20);
	assert_int_equal(hpm_dso__find_function(d, "two_loops", &addr, &size), 0);
	assert_true(size > 0);
	assert_int_equal(hpm_dso__lookup(d, addr + 1, HPM_SYM_LINES | HPM_SYM_INLINE, &s), 0);
	assert_string_equal(s.name, "two_loops");
	assert_int_equal(s.start, addr);
	assert_int_equal(s.offset, 1);
	assert_non_null(strstr(s.file, "lines.c"));
	/* file offset <-> address */
	assert_int_equal(hpm_dso__addr_to_offset(d, addr, &off), 0);
	assert_int_equal(hpm_dso__offset_to_addr(d, off, &back), 0);
	assert_int_equal(back, addr);
	/* FILE:LINE -> addresses, each of which maps back to the line */
	assert_int_equal(hpm_dso__find_line(d, "lines.c", s.line, addrs, 16, &nr), 0);
	assert_true(nr >= 1);
	struct hpm_symbol s2;
	hpm_dso__lookup(d, addrs[0], HPM_SYM_LINES, &s2);
	assert_int_equal(s2.line, s.line);
	assert_int_equal(hpm_dso__find_function(d, "no_such_function", &addr, &size), -ENOENT);
	/* code bytes and their disassembly */
	uint8_t code[16];
	char text[128];
	assert_int_equal(hpm_dso__read(d, s.start, code, sizeof(code)), (ssize_t)sizeof(code));
	struct hpm_disasm *dis = hpm_disasm__new(hpm_dso__arch(d));
	assert_non_null(dis);
	assert_true(hpm_disasm__one(dis, code, sizeof(code), s.start, text, sizeof(text)) > 0);
	assert_true(text[0]);
	hpm_disasm__free(dis);
	hpm_dso__free(d);
	assert_null(hpm_dso__open("/nonexistent/file", NULL));
	assert_int_equal(errno, ENOENT);
	assert_null(hpm_disasm__new("vax"));
}

static void test_jitmap(void **state)
{
	(void)state;
	char path[] = "/tmp/hpmon-jit-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *text = "1000 100 jitted_one\n2000 10 jitted two\nbad line\n";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct hpm_jitmap *m = hpm_jitmap__load(path);
	uint64_t start;
	assert_non_null(m);
	assert_string_equal(hpm_jitmap__lookup(m, 0x1050, &start), "jitted_one");
	assert_int_equal(start, 0x1000);
	assert_string_equal(hpm_jitmap__lookup(m, 0x2009, &start), "jitted two");
	assert_null(hpm_jitmap__lookup(m, 0x1100, &start));
	assert_null(hpm_jitmap__lookup(m, 0x10, &start));
	hpm_jitmap__free(m);
	/* a line longer than the reader's 1023 bytes: its name cut, and its
	 * rest (which looks like a line) not read as one */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	char longl[3000];
	int len = snprintf(longl, sizeof(longl), "3000 10 %01100d 4000 10 tail\n5000 10 five\n", 7);
	assert_int_equal(write(fd, longl, (size_t)len), len);
	close(fd);
	assert_non_null(m = hpm_jitmap__load(path));
	assert_non_null(hpm_jitmap__lookup(m, 0x3001, &start));
	assert_null(hpm_jitmap__lookup(m, 0x4001, &start));
	assert_string_equal(hpm_jitmap__lookup(m, 0x5001, &start), "five");
	hpm_jitmap__free(m);
	/* a map without one line: an empty table (UBSan: nothing sorted) */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "no map here\n", 12), 12);
	close(fd);
	assert_non_null(m = hpm_jitmap__load(path));
	assert_null(hpm_jitmap__lookup(m, 0x1000, &start));
	hpm_jitmap__free(m);
	unlink(path);
}

/* ---- sampling: a breakpoint with period 1 samples each call ---- */

struct count { uint64_t samples, mmaps, comms; };

static int on_rec(const struct hpm_prec *p, void *arg)
{
	struct count *c = arg;
	c->samples += p->type == HPM_PREC_SAMPLE;
	c->mmaps += p->type == HPM_PREC_MMAP;
	c->comms += p->type == HPM_PREC_COMM;
	return 0;
}

static void test_record_breakpoint(void **state)
{
	(void)state;
	if (!host_bp_fires())
		hpm_skip_test("hardware breakpoints do not fire here (e2e/record-breakpoint checks "
			      "that hpmon record refuses them)");
	char buf[64], spec[96], *argv[] = { HPM_TEST_WORKLOADS "/calls", (char *)"777", NULL };
	int go[2];
	/* the address of hpm_work without randomisation */
	FILE *f = popen("setarch $(uname -m) -R " HPM_TEST_WORKLOADS "/calls --addr", "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	pclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	snprintf(spec, sizeof(spec), "mem:%s:x", buf);

	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	struct hpm_evlist *list;
	assert_int_equal(hpm_evlist__parse(ctx, spec, &list, NULL), 0);
	assert_int_equal(pipe(go), 0);
	pid_t pid = fork();
	if (!pid) {
		char c;
		personality(ADDR_NO_RANDOMIZE);
		close(go[1]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(go[0]);
	struct hpm_record_opts o = { .sz = sizeof(o), .target = HPM_TARGET_EXEC, .ids = &pid,
				     .nr_ids = 1 };
	struct hpm_record *r = hpm_record__new(list, &o);
	assert_non_null(r);
	assert_int_equal(hpm_record__open(r), 0);
	assert_int_equal(hpm_record__attr(r, 0)->sample_period, 1);
	assert_true(hpm_record__trigger(r, 0));
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	struct count c = { 0 };
	int status;
	while (waitpid(pid, &status, WNOHANG) == 0) {
		assert_true(hpm_record__drain(r, on_rec, &c) >= 0);
		usleep(1000);
	}
	hpm_record__disable(r);
	assert_true(hpm_record__drain(r, on_rec, &c) >= 0);
	struct hpm_record_stats st;
	hpm_record__stats(r, &st);
	assert_int_equal(st.lost, 0);
	assert_int_equal(c.samples, 777);
	assert_int_equal(st.samples, 777);
	assert_true(c.mmaps >= 2); /* the program and the dynamic loader at least */
	assert_true(c.comms >= 1); /* its exec */
	hpm_record__free(r);
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
}

static void test_default_periods(void **state)
{
	(void)state;
	struct hpm_ctx *ctx = hpm_ctx__new(NULL);
	struct hpm_evlist *list;
	assert_int_equal(hpm_evlist__parse(ctx, "cpu-clock,cycles,page-faults", &list, NULL), 0);
	assert_int_equal(hpm_record__default_period(hpm_evlist__event(list, 0)), 250007);
	assert_int_equal(hpm_record__default_period(hpm_evlist__event(list, 1)), 1000003);
	assert_int_equal(hpm_record__default_period(hpm_evlist__event(list, 2)), 1);
	hpm_evlist__free(list);
	hpm_ctx__free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_job_fields),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_unfinished),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_symbols),
		cmocka_unit_test(test_jitmap),
		cmocka_unit_test(test_default_periods),
		cmocka_unit_test(test_record_breakpoint),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
