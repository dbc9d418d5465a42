# SPDX-License-Identifier: MIT
# lib/sys/banned.h: the build includes it in every file of lib/ and
# tools/, so a call of a banned function fails to compile, naming it; the
# allowed replacements compile.
. "$(dirname "$0")/lib.sh"

banned="$SRCDIR/lib/sys/banned.h"
for call in 'strcpy(b, s)' 'strcat(b, s)' 'strncpy(b, s, 4)' 'strncat(b, s, 4)' \
	'strtok(b, " ")' 'sprintf(b, "%s", s)' 'atoi(s)' 'atol(s)' 'atoll(s)' \
	'localtime(&t)' 'gmtime(&t)' 'ctime(&t)'; do
	name=${call%%(*}
	printf '#include <string.h>\n#include <stdlib.h>\n#include <stdio.h>\n#include <time.h>\nvoid f(char *b, const char *s, time_t t);\nvoid f(char *b, const char *s, time_t t) { (void)t; (void)b; (void)s; (void)(%s); }\n' \
		"$call" >"$E2E_TMP/use.c"
	if gcc -std=gnu11 -D_GNU_SOURCE -include "$banned" -c -o "$E2E_TMP/use.o" "$E2E_TMP/use.c" \
		2>"$E2E_TMP/err"; then
		fail "$name compiled with banned.h"
	fi
	grep -q "sorry_${name}_is_a_banned_function" "$E2E_TMP/err" ||
		fail "the error for $name does not name it: $(head -3 "$E2E_TMP/err")"
done
printf '#include <string.h>\n#include <stdio.h>\n#include <stdlib.h>\nint f(char *b, size_t n, const char *s);\nint f(char *b, size_t n, const char *s) { char *e, *st; long v = strtol(s, &e, 10); (void)strtok_r(b, " ", &st); return snprintf(b, n, "%%s%%ld", s, v); }\n' >"$E2E_TMP/ok.c"
gcc -std=gnu11 -D_GNU_SOURCE -O2 -D_FORTIFY_SOURCE=2 -Wall -Werror -include "$banned" \
	-c -o "$E2E_TMP/ok.o" "$E2E_TMP/ok.c" 2>"$E2E_TMP/err" ||
	fail "the replacements do not compile with banned.h: $(cat "$E2E_TMP/err")"
note "12 banned calls refused, their replacements compile"
