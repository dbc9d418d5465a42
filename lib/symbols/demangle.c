/* SPDX-License-Identifier: MIT */
/*
 * C++ and Rust names made readable, as perf shows them (parameters
 * included), through libiberty's demangler: the one binutils and gdb use,
 * a C library, so it links into libhpmon as it is (libstdc++'s
 * abi::__cxa_demangle would pull C++ in and knows no Rust).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libiberty/demangle.h>

#include "symbols/demangle-internal.h"

char *hpm__demangle(const char *name)
{
	/* only mangled names: _Z (Itanium C++ ABI, Rust legacy) and _R
	 * (Rust v0); a C name is never handed to the demangler, which would
	 * read some (such as "_Rfoo") as mangled */
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	/* DMGL_AUTO: the style by the name's form, not libiberty's global */
	const int style = DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO;
	/* a PLT stub's name (plt.c): the function's, then "@plt", which the
	 * demangler would refuse as part of the mangled name */
	size_t n = strlen(name);
	if (n <= 4 || strcmp(name + n - 4, "@plt"))
		return cplus_demangle(name, style);
	char *base = malloc(n - 3);
	if (!base)
		return NULL;
	memcpy(base, name, n - 4);
	base[n - 4] = '\0';
	char *dem = cplus_demangle(base, style), *out = NULL;
	free(base);
	if (dem) {
		size_t len = strlen(dem) + sizeof("@plt");
		out = malloc(len);
		if (out)
			snprintf(out, len, "%s@plt", dem);
		free(dem);
	}
	return out;
}
