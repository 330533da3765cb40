# libFuzzer target for plan/wild and plan/filter. Run from the repo root:
#
#   make -f tests/fuzz/wild.mk                  build build-fuzz/fuzz_wild
#   make -f tests/fuzz/wild.mk fuzz-wild        fuzz for FUZZ_SECONDS (60)
#
# Needs clang with libFuzzer. Findings land in build-fuzz/ as crash-* or
# timeout-* files; reproduce one with: build-fuzz/fuzz_wild build-fuzz/crash-...
# A timeout is a finding too: the matchers must stay polynomial.

B ?= build-fuzz
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -std=c17 -D_GNU_SOURCE -g -O1 -Wall -Wextra -Werror -Wno-unused-parameter \
               -Isrc -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined

WILD_SRC := src/plan/wild.c src/plan/filter.c src/s3/uri.c src/base/buf.c src/base/str.c src/base/err.c
WILD_HDR := src/plan/wild.h src/plan/filter.h src/s3/uri.h src/base/buf.h src/base/str.h \
            src/base/err.h tests/unit/test_plan_wild_ref.h

all: $(B)/fuzz_wild

$(B)/fuzz_wild: tests/fuzz/fuzz_wild.c $(WILD_SRC) $(WILD_HDR)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_wild.c $(WILD_SRC)

fuzz-wild: $(B)/fuzz_wild
	@mkdir -p $(B)/corpus-wild
	$(B)/fuzz_wild -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=5 \
	    -dict=tests/fuzz/wild.dict -artifact_prefix=$(B)/ $(B)/corpus-wild

.PHONY: all fuzz-wild
