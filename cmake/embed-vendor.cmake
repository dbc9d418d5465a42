# SPDX-License-Identifier: MIT
# Embed data/vendor/ (docs/vendor-tables.md): each file compressed with
# zstd into ${DIR}/<path>.zst, included whole by the assembler (.incbin)
# from one generated C file, with the table {path, start, end} that
# lib/events/vendor.c finds a model's file in. Megabytes of tables cost
# about 0.6 MB in the library, and nothing at start-up: a file is
# decompressed at its first need only.
#   cmake -DSRC=data/vendor -DDIR=<build>/vendor -DOUT=<file.c> -DZSTD=zstd -P embed-vendor.cmake
file(GLOB_RECURSE files RELATIVE ${SRC} ${SRC}/*.txt)
list(SORT files)
set(asm "")
set(table "const struct hpm_vendor_blob hpm_vendor_blobs[] = {\n")
set(decl "")
set(i 0)
foreach(f IN LISTS files)
  set(z ${DIR}/${f}.zst)
  if(NOT EXISTS ${z} OR ${SRC}/${f} IS_NEWER_THAN ${z})
    get_filename_component(zdir ${z} DIRECTORY)
    file(MAKE_DIRECTORY ${zdir})
    execute_process(COMMAND ${ZSTD} -q -f -19 ${SRC}/${f} -o ${z}
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "embed-vendor: ${ZSTD} failed on ${SRC}/${f}")
    endif()
  endif()
  string(APPEND asm "\t\".globl hpm_vendor_z${i}, hpm_vendor_z${i}_end\\n\"\n"
                    "\t\".hidden hpm_vendor_z${i}, hpm_vendor_z${i}_end\\n\"\n"
                    "\t\"hpm_vendor_z${i}:\\n\"\n"
                    "\t\".incbin \\\"${z}\\\"\\n\"\n"
                    "\t\"hpm_vendor_z${i}_end:\\n\"\n")
  string(APPEND decl "extern const unsigned char hpm_vendor_z${i}[], hpm_vendor_z${i}_end[];\n")
  string(APPEND table "\t{\"${f}\", hpm_vendor_z${i}, hpm_vendor_z${i}_end},\n")
  math(EXPR i "${i}+1")
endforeach()
string(APPEND table "\t{NULL, NULL, NULL}\n};\n")
file(WRITE ${OUT}.tmp
  "/* generated from data/vendor/ by cmake/embed-vendor.cmake */\n"
  "#include <stddef.h>\n#include \"events/vendor-internal.h\"\n\n"
  "__asm__(\".section .rodata.hpm_vendor,\\\"a\\\"\\n\"\n${asm}\t\".previous\\n\");\n\n"
  "${decl}\n${table}")
file(RENAME ${OUT}.tmp ${OUT})
