// SPDX-License-Identifier: MIT
/*
 * timeline-strip IN OUT: bench/timeline.sh's helper. Writes the profile
 * IN again as OUT without its TIMELINE records (and without the header's
 * interval), so that the bytes the timeline takes in one recording are
 * size(IN) - size(OUT), free of the difference between two recordings of
 * the same work (their samples compress differently). Records go out in
 * chunks of at most a second of their time, as hpmon record writes them.
 * Prints "readings N" on stdout. Not a test; built by the script.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <hpmon/profile.h>

int main(int argc, char **argv)
{
	struct hpm_profile *p;
	struct hpm_prec r;
	uint64_t readings = 0, last = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: timeline-strip IN OUT\n");
		return 2;
	}
	int rc = hpm_profile__open(argv[1], &p);
	if (rc) {
		fprintf(stderr, "timeline-strip: %s: %s\n", argv[1], hpm_strerror(rc));
		return 1;
	}
	struct hpm_profile_meta m = *hpm_profile__meta(p);
	m.timeline_ns = 0;
	int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	struct hpm_profile_writer *w = fd >= 0 ? hpm_profile_writer__new(fd, &m, NULL) : NULL;
	if (!w) {
		perror("timeline-strip: cannot write");
		return 1;
	}
	while ((rc = hpm_profile__next(p, &r)) > 0) {
		uint64_t t = r.type == HPM_PREC_SAMPLE ? r.sample.time : 0;
		if (r.type == HPM_PREC_TIMELINE) {
			readings++;
			continue;
		}
		if (t && !last)
			last = t;
		if (t > last + 1000000000ull) {
			hpm_profile_writer__flush(w);
			last = t;
		}
		if ((rc = hpm_profile_writer__add(w, &r))) {
			fprintf(stderr, "timeline-strip: %s\n", strerror(-rc));
			return 1;
		}
	}
	if (hpm_profile_writer__close(w, &hpm_profile__status(p)->totals)) {
		perror("timeline-strip: cannot write");
		return 1;
	}
	hpm_profile__free(p);
	printf("readings %" PRIu64 "\n", readings);
	return 0;
}
