#!/bin/sh
# Build the seeds of fuzz_elf (tests/fuzz_elf.c) from tests/fuzz_elf_seed.c
# into DIR (default: tests/fuzz-corpus/elf beside this script).  Run by
# hand when the seed program changes; the binaries are committed, so the
# fuzzer needs no compiler of its own.  Three shapes of what the
# symbolizer meets:
#   gcc-exec.elf     gcc -O2, DWARF 5, a non-PIE executable (ET_EXEC, at
#                    its link address), with .debug_aranges
#   clang-so.elf     clang -O1, DWARF 5, a shared object (ET_DYN, at a
#                    load bias), no .debug_aranges (the symbolizer's own CU
#                    index), location lists and .debug_addr
#   gcc-O0-dw4.elf   gcc -O0, DWARF 4, a shared object: variables on the
#                    stack (DW_OP_fbreg), .debug_loc-free
# No libc and no build-id, one page alignment, .comment removed: a few
# KiB each, so that most mutations land in headers and debug sections.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/fuzz-corpus/elf}
src=$here/fuzz_elf_seed.c
ld="-nostdlib -Wl,--build-id=none -Wl,-z,noseparate-code -Wl,-z,max-page-size=4096 -Wl,-z,norelro"
mkdir -p "$out"
gcc -O2 -g -gdwarf-5 -fno-stack-protector -fno-pie -no-pie -static $ld \
	-o "$out/gcc-exec.elf" "$src"
clang -O1 -g -gdwarf-5 -fno-stack-protector -fPIC -shared $ld \
	-o "$out/clang-so.elf" "$src"
gcc -O0 -g -gdwarf-4 -fno-stack-protector -fPIC -shared $ld \
	-o "$out/gcc-O0-dw4.elf" "$src"
for f in "$out"/*.elf; do
	objcopy --remove-section .comment "$f"
done
ls -l "$out"
