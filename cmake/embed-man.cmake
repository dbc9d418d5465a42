# SPDX-License-Identifier: MIT
# The text of each man page (build/man/NAME.txt, cmake/man-page.cmake) as
# a NUL-terminated C string, in a table {name, text} that `hpmon help`
# looks pages up in (tools/hpmon/help.h). With no pages (HPM_MAN=OFF) the
# table is empty and the tool says why.
#
#   cmake -DFILES="a.txt;b.txt" -DOUT=hpmon-man.c -P cmake/embed-man.cmake
set(body "/* generated from docs/hpmon*.md by cmake/embed-man.cmake */\n#include <stddef.h>\n#include \"help.h\"\n")
set(table "const struct help_page help_pages[] = {\n")
set(i 0)
list(SORT FILES)
foreach(f IN LISTS FILES)
  get_filename_component(name ${f} NAME_WE)
  file(READ ${f} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(APPEND body "static const char p${i}[] = {${hex}0};\n")
  string(APPEND table "\t{\"${name}\", p${i}},\n")
  math(EXPR i "${i}+1")
endforeach()
string(APPEND table "\t{NULL, NULL}\n};\n")
file(WRITE ${OUT}.tmp "${body}${table}")
file(RENAME ${OUT}.tmp ${OUT})
