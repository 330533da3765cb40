# s3c build. GNU Make, no configure step: every dependency is a Debian 12
# package found by pkg-config-free defaults (see README "Why Make").
#
#   make                 build/s3c, build/s3emu, build/unit-tests  (-Werror)
#   make SAN=1           the same with ASan+UBSan, into build-san/
#   make SAN=thread      the same with TSan, into build-tsan/ (s3emu, the engine's land workers)
#   make test            unit tests, then e2e against the servers in tests/run-all.sh
#   make unit            unit tests only (no network)
#   make clean

SAN ?= 0
ifeq ($(SAN),1)
  B ?= build-san
  SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
  OPT := -O1 -g
else ifeq ($(SAN),thread)
  B ?= build-tsan
  SANFLAGS := -fsanitize=thread -fno-omit-frame-pointer
  OPT := -O1 -g
else
  B ?= build
  SANFLAGS :=
  OPT := -O2 -g
endif

CC      ?= cc
CFLAGS  ?= $(OPT)
CFLAGS  += -std=c17 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter \
           -Wstrict-prototypes -Wmissing-prototypes -Isrc $(SANFLAGS) -MMD -MP
LDFLAGS += $(SANFLAGS)
LIBS    := -lcurl -lssl -lcrypto -lexpat -ljansson -lisal -lpthread -lm

# Library code: every .c under src/ except main.c.
LIB_SRC := $(filter-out src/main.c,$(wildcard src/*/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
EMU_SRC := $(wildcard tools/s3emu/*.c)
EMU_OBJ := $(EMU_SRC:%.c=$(B)/%.o)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(B)/%.o)

all: $(B)/s3c $(B)/s3emu $(B)/unit-tests

$(B)/libs3c.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(B)/s3c: $(B)/src/main.o $(B)/libs3c.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/s3emu: $(EMU_OBJ) $(B)/libs3c.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/unit-tests: $(UNIT_OBJ) $(B)/libs3c.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

unit: $(B)/unit-tests
	$(B)/unit-tests

test: all
	tests/run-all.sh

clean:
	rm -rf build build-san build-tsan

.PHONY: all unit test clean
-include $(LIB_OBJ:.o=.d) $(EMU_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(B)/src/main.d

# Functions that have no place in this code base (unbounded or unchecked).
BANNED := strcpy|sprintf|vsprintf|strcat|gets|atoi|atol|strtok
lint:
	@if grep -nE '(^|[^_a-zA-Z0-9])($(BANNED)) *\(' $$(git ls-files '*.c' '*.h'); then \
	    echo "lint: banned function used (see above)"; exit 1; else echo "lint: ok"; fi
.PHONY: lint
