/* SPDX-License-Identifier: MIT */
/*
 * Records of processes that exist already (sample/sample-internal.h):
 * a sampling session on running processes or CPUs gets no comm or mmap
 * records for what happened before it opened, so they are made from
 * procfs (through the context's root), with each file's build id.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sample/sample-internal.h"
#include "core/ctx-internal.h"
#include "symbols/symbols-internal.h"

static struct rec_synth *synth_add(struct hpm_record *r)
{
	struct rec_synth *v = realloc(r->synth, (r->nr_synth + 1) * sizeof(*v));
	if (!v)
		return NULL;
	r->synth = v;
	memset(&v[r->nr_synth], 0, sizeof(*v));
	return &v[r->nr_synth++];
}

/* The build-id of a synthesized mapping's file; each file is read once
 * (system-wide, hundreds of processes map the same libraries). */
static void synth_build_id(struct hpm_record *r, struct hpm_mmap_rec *m)
{
	for (size_t i = r->nr_synth - 1; i-- > 0;) {
		const struct hpm_prec *p = &r->synth[i].p;
		if (p->type == HPM_PREC_MMAP && !strcmp(p->mmap.filename, m->filename)) {
			m->build_id_len = p->mmap.build_id_len;
			memcpy(m->build_id, p->mmap.build_id, sizeof(m->build_id));
			return;
		}
	}
	m->build_id_len = (uint8_t)hpm__elf_build_id(m->filename, m->build_id,
						     sizeof(m->build_id));
}

static int synth_process(struct hpm_record *r, pid_t pid)
{
	char path[PATH_MAX], comm[64] = "";
	char line[PATH_MAX + 256];
	struct rec_synth *s;
	FILE *f;

	if (hpm__path(path, sizeof(path), r->ctx->procfs, "%d/comm", (int)pid))
		return -ENAMETOOLONG;
	if (hpm__read_text(path, comm, sizeof(comm)) < 0)
		return 0; /* gone meanwhile */
	if (!(s = synth_add(r)) || !(s->str = strdup(comm)))
		return -ENOMEM;
	s->p.type = HPM_PREC_COMM;
	s->p.comm = (struct hpm_comm_rec){ .pid = pid, .tid = pid, .comm = s->str };
	if (hpm__path(path, sizeof(path), r->ctx->procfs, "%d/maps", (int)pid))
		return -ENAMETOOLONG;
	if (!(f = fopen(path, "re")))
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi, off;
		char perm[8], name[PATH_MAX] = "";
		int n = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &lo, &hi, perm, &off, &n) < 4)
			continue;
		if (perm[2] != 'x')
			continue;
		const char *p = line + n;
		while (*p == ' ' || *p == '\t')
			p++;
		snprintf(name, sizeof(name), "%s", p);
		name[strcspn(name, "\n")] = '\0';
		if (!name[0])
			snprintf(name, sizeof(name), "//anon");
		if (!(s = synth_add(r)) || !(s->str = strdup(name))) {
			fclose(f);
			return -ENOMEM;
		}
		s->p.type = HPM_PREC_MMAP;
		struct hpm_mmap_rec *m = &s->p.mmap;
		m->pid = m->tid = pid;
		m->start = lo;
		m->len = hi - lo;
		m->pgoff = off;
		m->prot = 4; /* PROT_EXEC */
		m->filename = s->str;
		if (name[0] == '/')
			synth_build_id(r, m);
	}
	fclose(f);
	return 0;
}

int hpm__record_synthesize(struct hpm_record *r)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	switch (r->o.target) {
	case HPM_TARGET_EXEC:
		return 0; /* the kernel reports the exec and its mappings */
	case HPM_TARGET_PIDS:
	case HPM_TARGET_TIDS:
		for (size_t i = 0; i < r->o.nr_ids && !rc; i++) {
			pid_t pid = r->o.ids[i];
			if (r->o.target == HPM_TARGET_TIDS) {
				char st[4096];
				if (!hpm__path(path, sizeof(path), r->ctx->procfs, "%d/status",
					       (int)pid) &&
				    hpm__read_text(path, st, sizeof(st)) > 0) {
					const char *t = strstr(st, "\nTgid:");
					if (t)
						pid = (pid_t)strtol(t + 6, NULL, 10);
				}
			}
			rc = synth_process(r, pid);
		}
		return rc;
	case HPM_TARGET_CPUS:
		if (hpm__path(path, sizeof(path), r->ctx->procfs, "."))
			return -ENAMETOOLONG;
		if (!(d = opendir(path)))
			return 0;
		while (!rc && (de = readdir(d))) {
			char *end;
			long pid = strtol(de->d_name, &end, 10);
			if (!*end && pid > 0)
				rc = synth_process(r, (pid_t)pid);
		}
		closedir(d);
		return rc;
	}
	return 0;
}

void hpm__record_synth_release(struct hpm_record *r)
{
	for (size_t i = 0; i < r->nr_synth; i++)
		free(r->synth[i].str);
	free(r->synth);
	r->synth = NULL;
	r->nr_synth = r->synth_done = 0;
}
