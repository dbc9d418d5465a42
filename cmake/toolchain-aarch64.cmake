# SPDX-License-Identifier: MIT
# Cross-compiling hpmon for arm64 (aarch64) Linux with Debian's cross
# toolchain: gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, and the arm64
# -dev packages of hpmon's dependencies installed multiarch
# (libpfm4-dev:arm64). scripts/build-aarch64 uses it with -DHPM_STATIC=ON
# for the guest lane; `scripts/deps guest` installs what it needs.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(HPM_CROSS_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${HPM_CROSS_TRIPLE}-gcc)
set(CMAKE_AR ${HPM_CROSS_TRIPLE}-ar CACHE FILEPATH "")
set(CMAKE_RANLIB ${HPM_CROSS_TRIPLE}-ranlib CACHE FILEPATH "")
set(CMAKE_STRIP ${HPM_CROSS_TRIPLE}-strip CACHE FILEPATH "")
set(CMAKE_LIBRARY_ARCHITECTURE ${HPM_CROSS_TRIPLE})

# The cross libc lives in /usr/aarch64-linux-gnu; the arm64 packages of the
# dependencies in the multiarch directories of the host's own tree. Search
# both for headers and libraries, never for programs (those must run here).
set(CMAKE_FIND_ROOT_PATH /usr/${HPM_CROSS_TRIPLE} /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# libpfm4: point the root CMakeLists.txt's find_library(pfm) and
# find_path(perfmon/...) at the arm64 multiarch files. A static link needs
# the archive, and find_library would prefer libpfm.so, so name it here.
set(HPM_CROSS_LIBDIR /usr/lib/${HPM_CROSS_TRIPLE})
if(EXISTS ${HPM_CROSS_LIBDIR}/libpfm.a)
  set(PFM_LIBRARY ${HPM_CROSS_LIBDIR}/libpfm.a CACHE FILEPATH "libpfm for aarch64")
endif()
if(EXISTS /usr/include/perfmon/pfmlib_perf_event.h)
  set(PFM_INCLUDE_DIR /usr/include CACHE PATH "libpfm headers (architecture-independent)")
endif()
