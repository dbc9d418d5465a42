/* SPDX-License-Identifier: MIT */
/*
 * Room: lib/symbols/ owns addresses to functions, lines and inlines; may use core, sys.
 *
 * Mangled C++ and Rust names made readable (lib/symbols/demangle.c).
 *
 * Ownership: hpm__demangle() returns a malloc'd string the caller frees.
 */
#ifndef HPM_SYMBOLS_DEMANGLE_INTERNAL_H
#define HPM_SYMBOLS_DEMANGLE_INTERNAL_H

/* A readable form of a mangled C++ or Rust @name (malloc'd), or NULL
 * when @name is not mangled (C) or not understood. */
char *hpm__demangle(const char *name);

#endif
