#!/bin/sh
# The library's exported symbols are the committed list (test/arch/symbols.txt): the public API's
# functions only (TL_API, include/talus/types.h; everything else is built hidden), so a move inside
# the house (issue 43) changes none; a change of the public API updates the list in the same commit:
#   nm -D --defined-only build/libtalus.so | awk '{print $3}' | sort > test/arch/symbols.txt
# Usage: check_symbols.sh LIBTALUS_SO SOURCE_DIR
set -eu
lib=$1
src=$2
got=$(mktemp)
trap 'rm -f "$got"' EXIT
# a sanitizer build (TALUS_SANITIZE) adds its own markers (__odr_asan.*, __asan_*): not the API's
nm -D --defined-only "$lib" | awk '{print $3}' | grep -v -E '^__(odr_asan|asan|ubsan|sanitizer|lsan)' | sort > "$got"
if ! diff -u "$src/test/arch/symbols.txt" "$got"; then
    echo "the exported symbols differ from test/arch/symbols.txt (- committed, + built)"
    exit 1
fi
echo "$(wc -l < "$got") exported symbols, as committed"
