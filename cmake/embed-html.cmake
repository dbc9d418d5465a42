# SPDX-License-Identifier: MIT
# The report page's sources (tools/hpmon/pictures/html/: page.html,
# app.js, style.css) as NUL-terminated C strings in a table {name, text}
# that picture-page.c assembles the page from, so the page needs no file
# at run time. As embed-data.cmake does for data/.
#
#   cmake -DFILES="a.html;b.js" -DOUT=hpmon-html.c -P cmake/embed-html.cmake
set(body "/* generated from tools/hpmon/pictures/html/ by cmake/embed-html.cmake */\n#include <stddef.h>\n#include \"pictures/pictures-internal.h\"\n")
set(table "const struct html_asset html_assets[] = {\n")
set(i 0)
list(SORT FILES)
foreach(f IN LISTS FILES)
  get_filename_component(name ${f} NAME)
  file(READ ${f} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(APPEND body "static const char h${i}[] = {${hex}0};\n")
  string(APPEND table "\t{\"${name}\", h${i}},\n")
  math(EXPR i "${i}+1")
endforeach()
string(APPEND table "\t{NULL, NULL}\n};\n")
file(WRITE ${OUT}.tmp "${body}${table}")
file(RENAME ${OUT}.tmp ${OUT})
