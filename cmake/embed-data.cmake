# SPDX-License-Identifier: MIT
# Turn each data/*.txt file into a NUL-terminated C string in one source
# file, with a table {name, text} the library looks files up in.
separate_arguments(FILES)
set(body "/* generated from data/ by cmake/embed-data.cmake */\n#include <stddef.h>\n#include \"core/data-internal.h\"\n")
set(table "const struct hpm_data_file hpm_data_files[] = {\n")
set(i 0)
list(SORT FILES)
foreach(f IN LISTS FILES)
  get_filename_component(name ${f} NAME)
  file(READ ${f} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," hex "${hex}")
  string(APPEND body "static const char d${i}[] = {${hex}0};\n")
  string(APPEND table "\t{\"${name}\", d${i}},\n")
  math(EXPR i "${i}+1")
endforeach()
string(APPEND table "\t{NULL, NULL}\n};\n")
file(WRITE ${OUT}.tmp "${body}${table}")
file(RENAME ${OUT}.tmp ${OUT})
