/* SPDX-License-Identifier: MIT */
/*
 * hpmon top's full-screen view (top.h), with ncurses: a title line, a
 * per-CPU line, the idle tasks' line, a line for prompts and messages,
 * the column header and the rows (rates per second, clocks as %CPU). Keys sort, filter, pause, switch rows and quit; 'h' shows
 * them. The terminal is given back (endwin) on every way out: 'q', -n
 * frames, Ctrl-C or another signal, and an error, which is printed after.
 * Built only where ncurses is found (tools/hpmon/CMakeLists.txt); else
 * top-tui-none.c says why the view is missing.
 */
#include <ctype.h>
#include <curses.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <hpmon/hpmon.h>
#include "output/exit.h"
#include "output/escape.h"
#include "launch/launch.h"
#include "top/top.h"

#define KEY_ESCAPE 27
/* the lines of the screen */
#define Y_IDLE 2
#define Y_MSG 3
#define Y_HEADER 4
#define Y_ROWS 5

struct tui {
	struct top *t;
	bool paused;
	bool help;
	char msg[160];
	int err;        /* a key's read failed (-errno): the view ends */
};

static void title(struct tui *u)
{
	const struct top *t = u->t;
	char hms[16], sort[128], idle[512];
	time_t s = (time_t)t->now;
	struct tm tm;
	if (localtime_r(&s, &tm))
		strftime(hms, sizeof(hms), "%H:%M:%S", &tm);
	else
		snprintf(hms, sizeof(hms), "?");
	snprintf(sort, sizeof(sort), "%s %s", t->sort_col == SIZE_MAX ? "pid" : t->cols[t->sort_col].label,
		 t->sort_asc ? "up" : "down");
	mvprintw(0, 0, "hpmon top - %s  every %.1fs  %zu %s, %zu shown  sort: %s", hms,
		 t->o->delay_s, t->nr_tasks,
		 t->rows.by == SYSROWS_THREAD ? "threads" : t->rows.by == SYSROWS_CGROUP ? "cgroups"
											  : "processes",
		 t->nr_lines, sort);
	if (t->o->cumulative)
		printw("  cumulative over %.1fs", t->elapsed);
	printw("%s%s", t->o->user_mode ? "  --user" : "", u->paused ? "  [paused]" : "");
	clrtoeol();
	move(1, 0);
	if (t->nr_cpus) {
		printw("CPU busy:");
		for (size_t c = 0; c < t->nr_cpus; c++)
			if (isnan(t->cpus[c].busy_pct))
				printw("  cpu%d -", t->cpus[c].cpu);
			else
				printw("  cpu%d %5.1f%%", t->cpus[c].cpu, t->cpus[c].busy_pct);
	} else {
		printw("your own processes only: no per-CPU line, no idle");
	}
	clrtoeol();
	move(Y_IDLE, 0);
	if (top_idle_line(t, idle, sizeof(idle)))
		printw("%s", esc_text(idle));
	clrtoeol();
	const struct top_filter *f = &t->o->filter;
	if (u->msg[0]) {
		mvprintw(Y_MSG, 0, "%s", u->msg);
	} else {
		mvprintw(Y_MSG, 0, "h: help  q: quit");
		if (f->by_uid || f->comm[0] || f->nr_pids)
			printw("  filter:%s%s%s%s", f->comm[0] ? " name~" : "",
			       f->comm[0] ? esc_text(f->comm) : "", f->by_uid ? " user" : "",
			       f->nr_pids ? " pid" : "");
		if (t->lost)
			printw("  lost switch records: %llu", (unsigned long long)t->lost);
	}
	clrtoeol();
}

static void header(const struct top *t, int y)
{
	attron(A_REVERSE);
	move(y, 0);
	clrtoeol();
	if (t->rows.by == SYSROWS_CGROUP)
		printw("%-40s", "CGROUP");
	else
		printw("%7s %-8s %-16s", t->rows.by == SYSROWS_THREAD ? "TID" : "PID", "USER", "COMM");
	for (size_t c = 0; c < t->nr_cols; c++) {
		char name[112];
		if (t->cols[c].hidden)
			continue;
		snprintf(name, sizeof(name), "%s%s", c == t->sort_col ? "*" : "", t->cols[c].label);
		printw(" %*s", top_col_width(&t->cols[c]), esc_text(name));
	}
	int x = getcurx(stdscr);
	for (; x < COLS; x++)
		addch(' ');
	attroff(A_REVERSE);
}

static void rows(const struct top *t, int y0)
{
	char id[16], user[32], num[64];
	for (size_t k = 0; k < t->nr_lines && y0 + (int)k < LINES; k++) {
		const struct top_line *l = &t->lines[k];
		const struct sysrow *r = &t->rows.row[l->row];
		move(y0 + (int)k, 0);
		if (t->rows.by == SYSROWS_CGROUP) {
			printw("%-40.40s", esc_text(r->pid > 0 ? r->cgroup : r->comm));
		} else {
			if (r->pid < 0)
				snprintf(id, sizeof(id), "-");
			else
				snprintf(id, sizeof(id), "%d",
					 (int)(t->rows.by == SYSROWS_THREAD ? r->tid : r->pid));
			top_user_name(r->uid, user, sizeof(user));
			printw("%7s %-8.8s %-16.16s", id, esc_text(user), esc_text(r->comm));
		}
		for (size_t c = 0; c < t->nr_cols; c++) {
			if (t->cols[c].hidden)
				continue;
			top_fmt(&t->cols[c], l->val[c], num, sizeof(num));
			printw(" %*s", top_col_width(&t->cols[c]), num);
		}
		clrtoeol();
	}
}

static void help(void)
{
	static const char *const lines[] = {
		"hpmon top: keys",
		"",
		"  h, ?     this help (any key returns)",
		"  q        quit",
		"  < >      sort by the column to the left / right (left of the first: pid)",
		"  r        reverse the order",
		"  /        show only tasks whose name contains a text",
		"  u        show only the tasks of a user",
		"  p        show only a process (its pid)",
		"  Esc      clear the filters",
		"  space    pause / resume",
		"  H        rows per thread / per process",
		"  c        values since the start (cumulative) / over each refresh",
		"",
		"%CPU: the clock's share of one CPU; other columns: counts per second of the",
		"refresh (since the start with c). The idle tasks are on a line of their own.",
		"Counts are exact: every context switch reads the counters (docs/hpmon-top.md).",
	};
	erase();
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		mvprintw((int)i, 0, "%s", lines[i]);
}

static void draw(struct tui *u)
{
	if (u->help) {
		help();
	} else {
		erase();
		title(u);
		header(u->t, Y_HEADER);
		rows(u->t, Y_ROWS);
	}
	refresh();
}

/* Read a line on the message line after @prompt (Esc cancels): true when
 * given. */
static bool ask(struct tui *u, const char *prompt, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	nodelay(stdscr, FALSE);
	curs_set(1);
	for (;;) {
		mvprintw(Y_MSG, 0, "%s%s", prompt, buf);
		clrtoeol();
		refresh();
		int ch = getch();
		if (ch == '\n' || ch == KEY_ENTER || ch == '\r')
			break;
		if (ch == KEY_ESCAPE || ch == ERR) {
			n = 0;
			buf[0] = '\0';
			break;
		}
		if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && n) {
			buf[--n] = '\0';
		} else if (ch >= 32 && ch < 127 && n + 1 < len) {
			buf[n++] = (char)ch;
			buf[n] = '\0';
		}
	}
	curs_set(0);
	nodelay(stdscr, TRUE);
	(void)u;
	return n > 0;
}


/* One key: false to quit. */
static bool key(struct tui *u, int ch)
{
	struct top *t = u->t;
	struct top_filter *f = &t->o->filter;
	char buf[64];

	u->msg[0] = '\0';
	if (u->help) {
		/* any key leaves the help, but a resize is no key: tmux and
		 * terminals may signal it a while after the size changed, and
		 * the help just asked for would go */
		if (ch != KEY_RESIZE)
			u->help = false;
		return true;
	}
	switch (ch) {
	case 'q':
		return false;
	case 'h':
	case '?':
		u->help = true;
		break;
	case '<': {
		size_t c = t->sort_col;
		do
			c = c == SIZE_MAX || c == 0 ? SIZE_MAX : c - 1;
		while (c != SIZE_MAX && t->cols[c].hidden);
		t->sort_col = c;
		t->sort_asc = c == SIZE_MAX;
		break;
	}
	case '>': {
		size_t c = t->sort_col == SIZE_MAX ? 0 : t->sort_col + 1;
		while (c < t->nr_cols && t->cols[c].hidden)
			c++;
		if (c < t->nr_cols)
			t->sort_col = c;
		t->sort_asc = false;
		break;
	}
	case 'r':
		t->sort_asc = !t->sort_asc;
		break;
	case '/':
		if (ask(u, "show names containing: ", buf, sizeof(f->comm)))
			snprintf(f->comm, sizeof(f->comm), "%s", buf);
		break;
	case 'u':
		if (ask(u, "show user: ", buf, sizeof(buf))) {
			if (top_parse_user(buf, &f->uid) == 0)
				f->by_uid = true;
			else
				snprintf(u->msg, sizeof(u->msg), "no such user: %s", esc_text(buf));
		}
		break;
	case 'p':
		if (ask(u, "show pid: ", buf, sizeof(buf))) {
			char *end;
			long v = strtol(buf, &end, 10);
			if (*end || v <= 0)
				snprintf(u->msg, sizeof(u->msg), "not a pid: %s", esc_text(buf));
			else {
				f->pids[0] = (pid_t)v;
				f->nr_pids = 1;
			}
		}
		break;
	case KEY_ESCAPE:
		memset(f, 0, sizeof(*f));
		break;
	case ' ':
		u->paused = !u->paused;
		break;
	case 'H':
		if (t->rows.by == SYSROWS_CGROUP)
			break;
		/* the frame's lines name rows of the old kind: the rows
		 * are built anew, and the lines with them */
		if ((u->err = top_regroup(t, t->rows.by == SYSROWS_THREAD ? SYSROWS_PROCESS
									     : SYSROWS_THREAD)))
			return false;
		snprintf(u->msg, sizeof(u->msg), "rows per %s%s",
			 t->rows.by == SYSROWS_THREAD ? "thread" : "process",
			 t->o->cumulative ? "" : " from the next refresh");
		return true;
	case 'c':
		t->o->cumulative = !t->o->cumulative;
		break;
	case KEY_RESIZE:
		break;
	default:
		snprintf(u->msg, sizeof(u->msg), "unknown key: h for help");
		return true;
	}
	top_refilter(t);
	return true;
}

int top_tui(struct top *t)
{
	struct tui u = { .t = t };
	int rc = HPM_EXIT_OK;
	long frames = 0;

	if (!initscr()) {
		fprintf(stderr, "hpmon top: cannot use this terminal: use -b\n");
		return HPM_EXIT_FAIL;
	}
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	draw(&u);
	for (;;) {
		int w = top_wait(t, t->o->delay_s, 0);
		if (w < 0)
			break;
		bool quit = false;
		int ch;
		while ((ch = getch()) != ERR)
			if (!key(&u, ch)) {
				quit = true;
				break;
			}
		if (u.err) {
			endwin();
			fprintf(stderr, "hpmon top: reading the counts failed: %s\n",
				top_strerror(u.err));
			return HPM_EXIT_FAIL;
		}
		if (quit)
			break;
		if (w == 0 && !u.paused) {
			int e = top_frame(t);
			if (e) {
				endwin();
				fprintf(stderr, "hpmon top: reading the counts failed: %s\n", top_strerror(e));
				return HPM_EXIT_FAIL;
			}
			if (t->o->frames && ++frames >= t->o->frames) {
				draw(&u);
				break;
			}
			draw(&u);
			if ((e = top_after_frame(t))) {
				endwin();
				fprintf(stderr, "hpmon top: cannot start counting afresh: %s\n",
					top_strerror(e));
				return HPM_EXIT_FAIL;
			}
			continue;
		}
		draw(&u);
	}
	endwin();
	if (got_signal && got_signal != SIGINT)
		rc = 128 + got_signal;
	return rc;
}
