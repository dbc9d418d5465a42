/* SPDX-License-Identifier: MIT */
/*
 * The filters of report, annotate and diff (report/report.h): lists of
 * names and ids as perf takes them, split at commas, and the tests a
 * sample's task, object and function pass.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report-internal.h"

static const char *const kind_opt[] = { "--comm", "--pid", "--tid", "--dso", "--sym", "--rank" };

/* A piece of a --sym list that a comma cut out of a longer name: its
 * parentheses do not pair ("f(int" of "f(int, int)"), or its angle
 * brackets do not and it is no operator ("std::pair<int" of
 * "std::pair<int, int>::swap"). */
static bool cut_name(const char *s, size_t n)
{
	int paren = 0, angle = 0;
	for (size_t i = 0; i < n; i++) {
		paren += (s[i] == '(') - (s[i] == ')');
		angle += (s[i] == '<') - (s[i] == '>');
	}
	if (paren)
		return true;
	return angle && !memmem(s, n, "operator", 8);
}

static int add_id(struct rep_filter *f, enum rep_filter_kind k, const char *s, size_t n,
		  char *why, size_t len)
{
	pid_t *v = k == RF_PID ? f->pids : f->tids;
	size_t *nr = k == RF_PID ? &f->nr_pids : &f->nr_tids;
	char buf[24], *end;

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	long x = strtol(buf, &end, 10);
	if (end == buf || *end || errno || x <= 0 || x > INT32_MAX) {
		snprintf(why, len, "%s: '%s' is not a %s id (give positive numbers separated by "
			 "commas: 1234,1240)", kind_opt[k], buf, k == RF_PID ? "process" : "thread");
		return -EINVAL;
	}
	if (*nr >= REP_LIST_MAX) {
		snprintf(why, len, "%s: more than %d ids", kind_opt[k], REP_LIST_MAX);
		return -E2BIG;
	}
	v[(*nr)++] = (pid_t)x;
	return 0;
}

/* A rank, or a range of them ("2-5"), of a --rank list. */
static int add_rank(struct rep_filter *f, const char *s, size_t n, char *why, size_t len)
{
	char buf[48], *end, *p;
	long v[2];

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	p = buf;
	for (int i = 0; i < 2; i++) {
		errno = 0;
		v[i] = strtol(p, &end, 10);
		if (end == p || errno || v[i] < 0 || v[i] > INT32_MAX || *p == '-' || *p == '+')
			goto bad;
		if (i == 0 && *end == '-') {
			p = end + 1;
			continue;
		}
		if (*end)
			goto bad;
		if (i == 0)
			v[1] = v[0];
		break;
	}
	if (v[1] < v[0])
		goto bad;
	if (f->nr_ranks >= REP_LIST_MAX) {
		snprintf(why, len, "--rank: more than %d items", REP_LIST_MAX);
		return -E2BIG;
	}
	f->rank_lo[f->nr_ranks] = (uint32_t)v[0];
	f->rank_hi[f->nr_ranks++] = (uint32_t)v[1];
	return 0;
bad:
	snprintf(why, len, "--rank: '%s' is not a rank (give ranks from 0, or ranges of them, "
		 "separated by commas: 0,2,5-7)", buf);
	return -EINVAL;
}

static int add_name(struct rep_filter *f, enum rep_filter_kind k, const char *s, size_t n,
		    char *why, size_t len)
{
	struct rep_list *l = k == RF_COMM ? &f->comms : k == RF_DSO ? &f->dsos : &f->syms;

	if (k == RF_SYM && cut_name(s, n)) {
		snprintf(why, len, "--sym: '%.*s' is part of a name: lists are split at commas, "
			 "as perf splits them; give a C++ function without its parameters "
			 "(ns::f for ns::f(int, int)), or its mangled name with --no-demangle",
			 (int)(n > 200 ? 200 : n), s);
		return -EINVAL;
	}
	if (l->nr >= REP_LIST_MAX) {
		snprintf(why, len, "%s: more than %d names", kind_opt[k], REP_LIST_MAX);
		return -E2BIG;
	}
	l->v[l->nr] = s;
	l->len[l->nr++] = n;
	return 0;
}

int rep_filter__add(struct rep_filter *f, enum rep_filter_kind k, const char *arg, char *why,
		    size_t len)
{
	const char *s = arg;

	for (;;) {
		size_t n = strcspn(s, ",");
		if (!n) {
			snprintf(why, len, "%s: an empty item in '%s' (items are separated by "
				 "single commas)", kind_opt[k], arg);
			return -EINVAL;
		}
		int rc = k == RF_PID || k == RF_TID ? add_id(f, k, s, n, why, len) :
			 k == RF_RANK ? add_rank(f, s, n, why, len) : add_name(f, k, s, n, why, len);
		if (rc)
			return rc;
		if (!s[n])
			return 0;
		s += n + 1;
	}
}

bool rep_filter__any(const struct rep_filter *f)
{
	return f && (f->comms.nr || f->dsos.nr || f->syms.nr || f->nr_pids || f->nr_tids ||
		     f->nr_ranks);
}

bool rep_list__has(const struct rep_list *l, const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < l->nr; i++)
		if (l->len[i] == n && !memcmp(l->v[i], s, n))
			return true;
	return false;
}

static bool named_at(const char *name, const char *given, size_t n)
{
	return !strncmp(name, given, n) && (!name[n] || name[n] == '(');
}

/* Does @name start with "operator" as a word, at @i? */
static bool operator_at(const char *name, size_t i)
{
	return !strncmp(name + i, "operator", 8) &&
	       (i == 0 || name[i - 1] == ':' || name[i - 1] == ' ');
}

/*
 * A function template's demangled name starts with its return type
 * ("long ns::sum<long>(std::vector<long> const&)"), which perf's reports
 * leave out together with the parameters (ns::sum<long>), so a name is
 * also matched from just after a space at the top level of its
 * qualified name: outside <...>, (...), {...} and [...], before the
 * parameters. The space that ends "operator" ("operator new(unsigned
 * long)", "A::operator int()") is part of the name, and so are the
 * characters of an operator ("operator<<"), which do not nest.
 */
static bool named_after_return_type(const char *name, const char *given, size_t n)
{
	int depth = 0;

	for (size_t i = 0; name[i]; i++) {
		char c = name[i];
		if (operator_at(name, i)) {
			i += 8;
			if (name[i] == ' ') /* operator new, a conversion: a word follows */
				while (name[i + 1] && name[i + 1] != '(' && name[i + 1] != '<')
					i++;
			else if (name[i] == '(' && name[i + 1] == ')') /* operator() */
				i++;
			else
				while (name[i + 1] && strchr("<>=!+-*/%^&|~,[]", name[i + 1]))
					i++;
			continue;
		}
		if (c == '(' && depth == 0 && strncmp(name + i, "(anonymous namespace)", 21))
			return false; /* the parameters: the qualified name ended */
		if (c == '<' || c == '(' || c == '{' || c == '[')
			depth++;
		else if ((c == '>' || c == ')' || c == '}' || c == ']') && depth > 0)
			depth--;
		else if (c == ' ' && depth == 0 && named_at(name + i + 1, given, n))
			return true;
	}
	return false;
}

bool rep_sym_named(const char *name, const char *given, size_t n)
{
	return n && (named_at(name, given, n) || named_after_return_type(name, given, n));
}

bool rep_list__names_sym(const struct rep_list *l, const char *name)
{
	for (size_t i = 0; i < l->nr; i++)
		if (rep_sym_named(name, l->v[i], l->len[i]))
			return true;
	return false;
}

bool rep_ids__has(const pid_t *v, size_t n, pid_t x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

bool rep_filter__has_rank(const struct rep_filter *f, uint32_t rank)
{
	if (!f->nr_ranks)
		return true;
	for (size_t i = 0; i < f->nr_ranks; i++)
		if (rank >= f->rank_lo[i] && rank <= f->rank_hi[i])
			return true;
	return false; /* REP_NO_RANK too: no list names it */
}
