# SPDX-License-Identifier: MIT
# One man page from one docs/hpmon*.md (docs/CMakeLists.txt runs this per
# page): pandoc writes OUT.1 through the filter cmake/man.lua, and groff
# renders OUT.1 as plain text, 80 columns, in OUT.txt, the text the tool
# prints for `hpmon help CMD` where the page is not installed. A page that
# groff warns about fails the build, as a warning of the compiler does:
# man would show it cut or squeezed.
#
#   cmake -DPANDOC=... -DGROFF=... -DSRC=docs/hpmon-stat.md
#         -DOUT=build/man/hpmon-stat -DDOCDIR=/usr/local/share/doc/hpmon
#         -DVERSION=0.1.0 -P cmake/man-page.cmake
get_filename_component(name ${OUT} NAME)
get_filename_component(here ${CMAKE_CURRENT_LIST_FILE} DIRECTORY)

# pandoc's own Markdown (its definition lists, "term" then ":   text", are
# how the docs list options), without the extensions that would read the
# docs' plain text as markup: quotes and "--" made typographic, "@" as a
# citation, "$" as TeX, "<not supported>" as HTML, "~" and "^" as sub- and
# superscripts, "(@)" and "A." as list markers.
set(format "markdown-smart-citations-tex_math_dollars-raw_tex-raw_html-subscript-superscript-strikeout-implicit_figures-fancy_lists-example_lists-inline_notes-footnotes-yaml_metadata_block-fenced_divs-bracketed_spans")

execute_process(
  COMMAND ${PANDOC} -f ${format} -t man -s --lua-filter ${here}/man.lua
          -M docdir=${DOCDIR} -M "footer=hpmon ${VERSION}" -M "header=hpmon manual"
          -o ${OUT}.1.tmp ${SRC}
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SRC}: pandoc could not make the man page: ${err}")
endif()

# The file's name is the page's: hpmon-stat.md is hpmon-stat(1).
file(STRINGS ${OUT}.1.tmp th REGEX "^\\.TH ")
if(NOT th MATCHES "^\\.TH \"${name}\" \"1\" ")
  message(FATAL_ERROR "${SRC}: the first line must be \"# ${name}(1)\", the page's "
                      "name and section (the man page says: ${th})")
endif()

# -t: tbl (the pages have no tables left, but a later one stays readable);
# -rLL/-rLT: 78 columns of text, as man gives on an 80-column terminal;
# -P-cbou: plain characters, no overstrikes or escape sequences.
execute_process(
  COMMAND ${GROFF} -t -ww -mandoc -Tutf8 -rLL=78n -rLT=78n -P-cbou
  INPUT_FILE ${OUT}.1.tmp OUTPUT_FILE ${OUT}.txt.tmp
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
  message(FATAL_ERROR "${SRC}: groff warns about the man page made of it "
                      "(${OUT}.1.tmp); reword the lines it names:\n${err}")
endif()

# Runs of blank lines squeezed to one, as man does.
file(READ ${OUT}.txt.tmp text)
string(REGEX REPLACE "\n\n\n+" "\n\n" text "${text}")
file(WRITE ${OUT}.txt.tmp "${text}")

file(RENAME ${OUT}.1.tmp ${OUT}.1)
file(RENAME ${OUT}.txt.tmp ${OUT}.txt)
