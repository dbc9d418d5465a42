/* SPDX-License-Identifier: MIT */
/*
 * hpmon script: every sample of a profile (hpmon's or perf.data) as a line
 * of text in the layout of perf script, with the stack indented under it
 * when the samples have one, so that tools written for perf script's
 * output (FlameGraph's stackcollapse-perf.pl, one-liners) read it
 * unchanged (docs/hpmon-script.md). Names from the profile and the
 * system (comm, event, symbol, object) are escaped as report escapes
 * them (output/escape.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "builtin.h"
#include "output/advice.h"
#include "output/escape.h"
#include "report/report.h"
#include "report/table.h"

static const char script_usage[] =
	"usage: hpmon script [-i FILE] [-F FIELDS] [-G] [--no-demangle] [--debug-dir DIR]\n"
	"\n"
	"Print every sample of a profile (hpmon's, or a perf.data file) as perf\n"
	"script does: comm tid [cpu] time: period event: ip sym+off (dso), and\n"
	"its call stack indented under it when the samples have one.\n"
	"\n"
	"  -i, --input FILE   the profile (default hpmon.prof)\n"
	"  -F, --fields LIST  the fields, from comm,pid,tid,cpu,time,event,ip,sym,\n"
	"                     symoff,dso,period; +FIELD and -FIELD add to and take\n"
	"                     from the default\n"
	"  -G, --hide-call-graph  no stacks\n"
	"      --no-demangle  C++ and Rust names as the symbol table has them\n"
	"      --debug-dir DIR  separate debug files (default /usr/lib/debug)\n"
	"  -h, --help         this help\n"
	"\n"
	"See docs/hpmon-script.md.\n";

enum {
	F_COMM = 1 << 0, F_PID = 1 << 1, F_TID = 1 << 2, F_CPU = 1 << 3, F_TIME = 1 << 4,
	F_EVENT = 1 << 5, F_IP = 1 << 6, F_SYM = 1 << 7, F_SYMOFF = 1 << 8, F_DSO = 1 << 9,
	F_PERIOD = 1 << 10,
};

static const struct {
	const char *name;
	unsigned bit;
} fields[] = {
	{ "comm", F_COMM }, { "pid", F_PID }, { "tid", F_TID }, { "cpu", F_CPU },
	{ "time", F_TIME }, { "event", F_EVENT }, { "ip", F_IP }, { "sym", F_SYM },
	{ "symoff", F_SYMOFF }, { "dso", F_DSO }, { "period", F_PERIOD },
};

enum { OPT_NO_DEMANGLE = 256, OPT_DEBUG_DIR };

/* perf script's default fields; the CPU when the samples carry it. */
#define F_DEFAULT (F_COMM | F_TID | F_TIME | F_EVENT | F_IP | F_SYM | F_SYMOFF | F_DSO | F_PERIOD)

struct script {
	unsigned f;
	bool user_cpu;            /* -F named cpu: every event must carry it */
	bool stacks;
	int name_width;
	FILE *out;
	uint64_t chain[256]; /* UNWIND_MAX, rep_unwind's room */
	/* group reads: each member's last count, by (tid, cpu, event) */
	struct htab *h_prev;
	uint64_t *prev;
	size_t nr_prev, cap_prev;
};

static int field_bit(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (strlen(fields[i].name) == len && !strncmp(fields[i].name, name, len))
			return (int)fields[i].bit;
	return -1;
}

/* -F: a list, or +/- changes to the default. -1 after saying what is wrong. */
static int parse_fields(const char *s, unsigned *f, bool *user_cpu)
{
	bool relative = *s == '+' || *s == '-';
	unsigned v = relative ? F_DEFAULT : 0;

	while (*s) {
		char op = *s == '+' || *s == '-' ? *s++ : (relative ? '+' : 0);
		size_t n = strcspn(s, ",");
		int b = field_bit(s, n);
		if (b < 0) {
			fprintf(stderr, "hpmon script: unknown field '%.*s' in -F: the fields are "
				"comm, pid, tid, cpu, time, event, ip, sym, symoff, dso, period\n",
				(int)n, s);
			return -1;
		}
		if (op == '-')
			v &= ~(unsigned)b;
		else
			v |= (unsigned)b;
		if (b == F_CPU && op != '-')
			*user_cpu = true;
		s += n;
		if (*s == ',')
			s++;
	}
	if (!v) {
		fprintf(stderr, "hpmon script: -F selects no field\n");
		return -1;
	}
	*f = v;
	return 0;
}

static void put_frame(struct script *sc, struct rep *r, const struct hpm_sample *s, uint64_t ip,
		      enum hpm_mode mode, bool in_stack)
{
	struct rep_frame fr;
	FILE *o = sc->out;

	rep_frame(r, s, ip, mode, &fr);
	if (sc->f & F_IP)
		fprintf(o, in_stack ? "\t%16" PRIx64 : " %16" PRIx64, in_stack ? fr.addr : ip);
	if (sc->f & F_SYM) {
		fprintf(o, " %s", fr.sym ? esc_text(fr.sym) : "[unknown]");
		if ((sc->f & F_SYMOFF) && fr.sym)
			fprintf(o, "+0x%" PRIx64, fr.symoff);
	}
	if (sc->f & F_DSO)
		fprintf(o, " (%s)", fr.dso ? esc_text(fr.dso) : "[unknown]");
	fputc('\n', o);
}

/* One line (and its stack) of sample @s as event @ev with @period. */
static int put_sample(struct script *sc, struct rep *r, const struct hpm_sample *s, uint32_t ev,
		      uint64_t period, const char *comm, bool unwound)
{
	const struct hpm_profile_event *e = &r->meta.events[ev];
	FILE *o = sc->out;

	/* as perf: the symbol and the object go with the address */
	bool stack = sc->stacks && s->nr_chain && (sc->f & F_IP);
	if (sc->f & F_COMM)
		fprintf(o, stack ? "%s " : "%16s ", esc_text(comm));
	if ((sc->f & F_PID) && (sc->f & F_TID))
		fprintf(o, "%5d/%-5d ", (int)s->pid, (int)s->tid);
	else if (sc->f & F_PID)
		fprintf(o, "%5d ", (int)s->pid);
	else if (sc->f & F_TID)
		fprintf(o, "%5d ", (int)s->tid);
	if ((sc->f & F_CPU) && (e->sample_type & PERF_SAMPLE_CPU))
		fprintf(o, "[%03u] ", s->cpu);
	if (sc->f & F_TIME)
		fprintf(o, "%5" PRIu64 ".%06" PRIu64 ": ", s->time / 1000000000,
			s->time % 1000000000 / 1000);
	if (sc->f & F_PERIOD)
		fprintf(o, "%10" PRIu64 " ", period);
	if (sc->f & F_EVENT)
		fprintf(o, "%*s: ", sc->name_width, esc_text(e->name));
	if (!stack) {
		if (sc->f & F_IP)
			put_frame(sc, r, s, s->ip, s->mode, false);
		else
			fputc('\n', o);
		return ferror(o) ? -1 : 0;
	}
	fputc('\n', o);
	/* the chain as report reads it (rep_chain_next); a corrupt one is
	 * the sampled address alone */
	struct rep_chain_it it = { 0 };
	enum hpm_mode mode;
	uint64_t ip;
	bool caller = false;
	if (!rep_chain_ok(s))
		put_frame(sc, r, s, s->ip, s->mode, true);
	else
		while (rep_chain_next(s, &it, &ip, &mode)) {
			/* as perf script: a caller in a stack unwound from its
			 * copy is the call's last byte (libdw's pc - 1 past the
			 * first frame), one in a chain the kernel walked is the
			 * return address itself */
			bool back = unwound && mode == HPM_MODE_USER && caller && ip;
			put_frame(sc, r, s, back ? ip - 1 : ip, mode, true);
			caller |= unwound && mode == HPM_MODE_USER;
		}
	fputc('\n', o);
	return ferror(o) ? -1 : 0;
}

/* Member @m's count read at @s, less the one read at the previous sample
 * of the same counter (0 before); UINT64_MAX on no memory. The counter is
 * known by the sample's id when the file gives it, as perf script keys
 * it: perf record's counters are per CPU, and a file without the CPU in
 * its samples would mix two counters' counts when the task moves. Else
 * by the thread, CPU and event. */
static uint64_t group_delta(struct script *sc, const struct hpm_sample *s, uint32_t m)
{
	uint64_t k[3] = { s->id ? s->id : (uint32_t)s->tid, s->id ? UINT64_MAX : s->cpu,
			  (uint64_t)s->ev + m };
	long i = htab__get(sc->h_prev, k);
	uint64_t v = s->values[m];
	if (i < 0) {
		uint64_t *nv = vec__grow(sc->prev, &sc->cap_prev, sc->nr_prev, sizeof(*nv));
		if (!nv)
			return UINT64_MAX;
		sc->prev = nv;
		if (htab__put(sc->h_prev, k, sc->nr_prev))
			return UINT64_MAX;
		i = (long)sc->nr_prev++;
		sc->prev[i] = 0;
	}
	uint64_t d = v >= sc->prev[i] ? v - sc->prev[i] : v;
	sc->prev[i] = v;
	return d;
}

static int one_sample(struct rep *r, const struct hpm_sample *s0, const char *comm, void *arg)
{
	struct script *sc = arg;
	const struct hpm_profile_event *e = &r->meta.events[s0->ev];
	struct hpm_sample unwound;
	const struct hpm_sample *s = s0;

	if (sc->stacks && rep_unwind(r, s0, &unwound, sc->chain))
		s = &unwound;
	if (!(e->sample_type & PERF_SAMPLE_READ) || e->group_size < 2 || !s->nr_values)
		return put_sample(sc, r, s, s->ev, s->period, comm, s != s0);
	/* a group read at each sample: as perf script, a line for each member
	 * whose count moved, with what it counted since as its period */
	for (uint32_t m = 0; m < s->nr_values && m < e->group_size && s->ev + m < r->nr_ev; m++) {
		uint64_t d = group_delta(sc, s, m);
		if (d == UINT64_MAX)
			return -ENOMEM;
		if (d && put_sample(sc, r, s, s->ev + m, d, comm, s != s0))
			return -1;
	}
	return 0;
}

int cmd_script(int argc, char **argv, struct hpm_ctx *ctx)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "fields", required_argument, NULL, 'F' },
		{ "hide-call-graph", no_argument, NULL, 'G' },
		{ "no-demangle", no_argument, NULL, OPT_NO_DEMANGLE },
		{ "debug-dir", required_argument, NULL, OPT_DEBUG_DIR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct rep_opts o = { .input = "hpmon.prof", .callgraph = true };
	struct script sc = { .f = F_DEFAULT, .stacks = true, .out = stdout };
	bool explicit = false;
	struct rep r;
	int c;

	(void)ctx;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:i:F:Gh", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o.input = optarg; break;
		case 'F':
			if (parse_fields(optarg, &sc.f, &sc.user_cpu))
				return advice_usage_end("script");
			explicit = optarg[0] != '+' && optarg[0] != '-';
			break;
		case 'G': sc.stacks = false; break;
		case OPT_NO_DEMANGLE: o.no_demangle = true; break;
		case OPT_DEBUG_DIR: o.debug_dir = optarg; break;
		case 'h':
			fputs(script_usage, stdout);
			return HPM_EXIT_OK;
		case ':':
			fprintf(stderr, "hpmon script: option '%s' needs a value\nSee 'hpmon script --help'.\n",
				argv[optind - 1]);
			return HPM_EXIT_USAGE;
		default:
			fprintf(stderr, "hpmon script: unknown option '%s'\nSee 'hpmon script --help'.\n",
				argv[optind - 1]);
			return HPM_EXIT_USAGE;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "hpmon script: unexpected argument '%s'\nSee 'hpmon script --help'.\n",
			argv[optind]);
		return HPM_EXIT_USAGE;
	}
	if (!sc.stacks)
		o.callgraph = false;
	/* the header first: the event names' width and the CPU field */
	struct hpm_profile *p;
	if (rep_open(o.input, &p))
		return HPM_EXIT_FAIL;
	const struct hpm_profile_meta *m = hpm_profile__meta(p);
	for (uint32_t i = 0; i < m->nr_events; i++) {
		int w = (int)strlen(esc_text(m->events[i].name)); /* as printed */
		if (w > sc.name_width)
			sc.name_width = w;
		if (sc.user_cpu && m->events[i].trigger &&
		    !(m->events[i].sample_type & PERF_SAMPLE_CPU)) {
			fprintf(stderr, "hpmon script: the samples of '%s' do not carry the CPU: "
				"leave cpu out of -F (perf record -a, or --sample-cpu, records it)\n",
				esc_text(m->events[i].name));
			hpm_profile__free(p);
			return advice_usage_end("script");
		}
	}
	hpm_profile__free(p);
	if (!explicit)
		sc.f |= F_CPU; /* printed for the events whose samples carry it */
	if (!(sc.h_prev = htab__new(3))) {
		fprintf(stderr, "hpmon script: out of memory\n");
		return HPM_EXIT_FAIL;
	}
	int rc = rep_walk(&r, &o, one_sample, &sc);
	if (rc == -ENOMEM)
		fprintf(stderr, "hpmon script: out of memory reading '%s'\n", o.input);
	rep_free(&r);
	htab__free(sc.h_prev);
	free(sc.prev);
	return rc ? HPM_EXIT_FAIL : HPM_EXIT_OK;
}
