# s3c build. GNU Make, no configure step: every dependency is a Debian 12
# package found by pkg-config-free defaults (see README "Why Make").
#
#   make                 build/s3c, build/s3emu, build/unit-tests  (-Werror)
#   make SAN=1           the same with ASan+UBSan, into build-san/
#   make SAN=thread      the same with TSan, into build-tsan/ (s3emu, the engine's land workers)
#   make ARCH=arm64      cross-built for aarch64 into build-arm64/ (see below; tests/arm64/run.sh)
#   make test            unit tests, then e2e against the servers in tests/run-all.sh
#   make unit            unit tests only (no network)
#   make install         s3c, s3c(1) and the bash, zsh and fish completions under
#                        $(DESTDIR)$(PREFIX) (PREFIX=/usr/local); make uninstall
#   make clean
#
# The version is the VERSION file's, and nowhere else (debian/changelog is
# checked against it by tests/pkg/run.sh).

VERSION := $(shell cat VERSION)

# ARCH=arm64: a cross build for aarch64 with Debian's multiarch
# (crossbuild-essential-arm64 and the :arm64 -dev packages: scripts/deps-arm64.sh)
# into build-arm64/. What the build runs itself (docgen, and
# `make unit`) runs under $(EXEC): qemu-aarch64-static unless the build
# machine is an aarch64 one. SAN= and ARCH= do not combine.
HOST_ARCH := $(patsubst x86_64,amd64,$(patsubst aarch64,arm64,$(shell uname -m)))
ARCH ?= $(HOST_ARCH)
override ARCH := $(patsubst x86,amd64,$(patsubst x86_64,amd64,$(patsubst aarch64,arm64,$(ARCH))))
EXEC :=
ifneq ($(ARCH),$(HOST_ARCH))
  ifneq ($(ARCH),arm64)
    $(error ARCH=$(ARCH): only arm64 is a cross target)
  endif
  B ?= build-arm64
  CC := aarch64-linux-gnu-gcc
  EXEC := qemu-aarch64-static
endif

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
# ISA-L (CRC32, CRC32C) on x86-64 only: src/base/crc.h says why.
LIBS    := -lcurl -lssl -lcrypto -lexpat -ljansson $(if $(filter amd64,$(ARCH)),-lisal) -lz -lpthread -lm

# Library code: every .c under src/ except main.c.
LIB_SRC := $(filter-out src/main.c,$(wildcard src/*/*.c))
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
EMU_SRC := $(wildcard tools/s3emu/*.c)
EMU_OBJ := $(EMU_SRC:%.c=$(B)/%.o)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_OBJ := $(UNIT_SRC:%.c=$(B)/%.o)
DOCGEN_OBJ := $(B)/tools/docgen/docgen.o

# Generated from help.c and the parsers' flag tables by build/docgen (see
# tools/docgen/docgen.c): the man page and the three shells' completions.
DOCS := $(B)/s3c.1 $(B)/s3c.bash $(B)/_s3c $(B)/s3c.fish

all: $(B)/s3c $(B)/s3emu $(B)/unit-tests $(B)/slowcalls.so $(DOCS)

$(B)/libs3c.a: $(LIB_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^

$(B)/s3c: $(B)/src/main.o $(B)/libs3c.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/s3emu: $(EMU_OBJ) $(B)/libs3c.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/unit-tests: $(UNIT_OBJ) $(B)/libs3c.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

# Test-only LD_PRELOAD shim (tests/e2e/slowcalls.c): slow blocking calls for
# the loop-lag tests. No sanitizers: it is preloaded into any build of s3c.
$(B)/slowcalls.so: tests/e2e/slowcalls.c
	@mkdir -p $(@D)
	$(CC) -O2 -g -std=c17 -D_GNU_SOURCE -Wall -Wextra -Werror -fPIC -shared -o $@ $< -ldl

$(B)/docgen: $(DOCGEN_OBJ) $(B)/libs3c.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(B)/s3c.1: docs/s3c.1.in $(B)/docgen
	$(EXEC) $(B)/docgen man $< > $@.tmp && mv $@.tmp $@
$(B)/s3c.bash: completions/s3c.bash.in $(B)/docgen
	$(EXEC) $(B)/docgen bash $< > $@.tmp && mv $@.tmp $@
$(B)/_s3c: completions/_s3c.in $(B)/docgen
	$(EXEC) $(B)/docgen zsh $< > $@.tmp && mv $@.tmp $@
$(B)/s3c.fish: completions/s3c.fish.in $(B)/docgen
	$(EXEC) $(B)/docgen fish $< > $@.tmp && mv $@.tmp $@

docs: $(DOCS)

# Only version.o sees the version, so a new VERSION rebuilds one file.
$(B)/src/cli/version.o: VERSION
$(B)/src/cli/version.o: CFLAGS += -DS3C_VERSION='"$(VERSION)"'

$(B)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

unit: $(B)/unit-tests
	$(EXEC) $(B)/unit-tests

test: all
	tests/run-all.sh

clean:
	rm -rf build build-san build-tsan build-arm64

# Where the shells look: bash-completion and fish search $(PREFIX)/share (as
# an XDG data dir); zsh on Debian has vendor-completions for /usr and
# site-functions for /usr/local in its fpath.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)
FISHCOMPDIR ?= $(PREFIX)/share/fish/vendor_completions.d
INSTALLED   := $(BINDIR)/s3c $(MANDIR)/man1/s3c.1 $(BASHCOMPDIR)/s3c $(ZSHCOMPDIR)/_s3c \
               $(FISHCOMPDIR)/s3c.fish

install: $(B)/s3c $(DOCS)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR) \
	    $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR)
	install -m 0755 $(B)/s3c $(DESTDIR)$(BINDIR)/s3c
	install -m 0644 $(B)/s3c.1 $(DESTDIR)$(MANDIR)/man1/s3c.1
	install -m 0644 $(B)/s3c.bash $(DESTDIR)$(BASHCOMPDIR)/s3c
	install -m 0644 $(B)/_s3c $(DESTDIR)$(ZSHCOMPDIR)/_s3c
	install -m 0644 $(B)/s3c.fish $(DESTDIR)$(FISHCOMPDIR)/s3c.fish

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

.PHONY: all unit test clean docs install uninstall
-include $(LIB_OBJ:.o=.d) $(EMU_OBJ:.o=.d) $(UNIT_OBJ:.o=.d) $(DOCGEN_OBJ:.o=.d) $(B)/src/main.d

# Functions that have no place in this code base (unbounded or unchecked).
BANNED := strcpy|sprintf|vsprintf|strcat|gets|atoi|atol|strtok
lint: layers fuzz-compiles
	@if grep -nE '(^|[^_a-zA-Z0-9])($(BANNED)) *\(' $$(git ls-files '*.c' '*.h'); then \
	    echo "lint: banned function used (see above)"; exit 1; else echo "lint: ok"; fi
# The files of each of these directories call each other one way
# (scripts/check-layers.sh, from the objects' symbols): a loop fails, with
# no exception. (src/cli: cli.c only dispatches; what the verbs share of the
# run, the store, the keys and the global flags, is ctx.c's, below them; run
# finds its barrier lines' verbs through the table cli_main() hands it.)
LAYERS_DIRS := src/xfer src/auth src/cli tools/s3emu
layers: $(filter $(addprefix $(B)/,$(addsuffix /%,$(LAYERS_DIRS))),$(LIB_OBJ)) $(EMU_OBJ)
	@scripts/check-layers.sh $(B) src/xfer
	@scripts/check-layers.sh $(B) src/auth
	@scripts/check-layers.sh $(B) src/cli
	@scripts/check-layers.sh $(B) tools/s3emu
# The libFuzzer targets are built only by tests/fuzz/Makefile (clang, late in
# CI): check here, in seconds, that they still compile against today's headers.
fuzz-compiles:
	@$(CC) $(filter-out -MMD -MP,$(CFLAGS)) -Isrc -fsyntax-only tests/fuzz/*.c
.PHONY: lint layers fuzz-compiles
