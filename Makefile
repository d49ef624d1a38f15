# headroom - build, test, run.  See README.md; `make help` lists targets.
#
# Everything under dataset/ verify/ replay/ report/ figures/ is one program,
# ./headroom.  A folder may add its own rules in <folder>/<folder>.mk.

CC      ?= cc
# PYTHON: an interpreter with torch 2.11 + numpy; empty = .ci/pyenv.sh finds
# or makes one.  Recipes start with $(FIND_PY) and then use "$$PY".
PYTHON  ?=
FIND_PY  = PY="$(PYTHON)"; [ -n "$$PY" ] || PY=$$(sh .ci/pyenv.sh) || exit 1;
# -ffp-contract=off: no fused multiply-add the source did not ask for
# (already GCC's default under -std=c17; stated, since verify's rules must
# round as the GPU's do, also in the x86-64-v3 clone that has FMA).
CSTD     = -std=c17 -D_GNU_SOURCE -ffp-contract=off
WARN     = -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wformat=2
OPT     ?= -O2 -g
SYSROOT ?=
ifneq ($(SYSROOT),)
  SYS_CPPFLAGS = -I$(SYSROOT)/usr/include \
                 -I$(SYSROOT)/usr/include/x86_64-linux-gnu
  SYS_LDFLAGS  = -L$(SYSROOT)/usr/lib/x86_64-linux-gnu \
                 -Wl,-rpath,$(abspath $(SYSROOT))/usr/lib/x86_64-linux-gnu
endif
CFLAGS  += $(CSTD) $(WARN) $(OPT) $(SYS_CPPFLAGS)
LDLIBS   = $(SYS_LDFLAGS) -larchive -lcjson -lsqlite3 -lcrypto -lm
ASANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all

STAGES   = dataset verify replay report figures
SRCS     = $(sort $(wildcard $(addsuffix /*.c,$(STAGES))))
LIBSRCS  = $(filter-out report/main.c,$(SRCS))
OBJS     = $(SRCS:%.c=build/%.o) build/version.o
LIBOBJS  = $(LIBSRCS:%.c=build/%.o) build/version.o
AOBJS    = $(SRCS:%.c=build/asan/%.o) build/asan/version.o
ALIBOBJS = $(LIBSRCS:%.c=build/asan/%.o) build/asan/version.o
UNIT_SRCS = $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=build/asan/tests/%)

NPROC := $(shell nproc 2>/dev/null || echo 2)
# The commit, and for a tree that differs from it the tree's own hash
# (tests/gpu/tree-hash.sh: names and contents of the tracked and untracked,
# not ignored files), so a build from a copy with stale git metadata -- the
# GPU machine's -- still says what it was built from.
VERSION := $(shell v=$$(git describe --always --dirty 2>/dev/null) || v=unknown; \
	case $$v in (*-dirty) v="$$v+tree.$$(sh tests/gpu/tree-hash.sh)" ;; esac; echo "$$v")

.PHONY: all run check test bench deps deps-check deps-figures clean help \
        gpu-check figures paper FORCE
all: headroom

help:
	@echo "make run        ingest the sample archive into ./headroom.db, list it,"
	@echo "                write its tables (out/report) and figures (out/figures)"
	@echo "make check      build with sanitizers and run every test (CI calls this)"
	@echo "make bench      benchmarks (figures go to docs/benchmarks.md by hand)"
	@echo "make gpu-check  GPU tests (on a CUDA machine only)"
	@echo "make figures    regenerate figures from ./headroom.db"
	@echo "make paper      build the reproduction report PDF"

deps:
	@sh .ci/deps.sh build
deps-check:
	@sh .ci/deps.sh build check
deps-figures:
	@sh .ci/deps.sh build figures

# version.c is rewritten only when the version string changes.
build/version.c: FORCE
	@mkdir -p build
	@printf '#include "../dataset/version.h"\nconst char *hr_version(void) { return "%s"; }\n' \
	  '$(VERSION)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

build/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@
build/version.o: build/version.c
	$(CC) $(CFLAGS) -c $< -o $@
build/asan/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASANFLAGS) -O1 -MMD -MP -c $< -o $@
build/asan/version.o: build/version.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASANFLAGS) -c $< -o $@

headroom: $(OBJS)
	$(CC) $(CFLAGS) -o $@ $(OBJS) $(LDLIBS)
build/asan/headroom: $(AOBJS)
	$(CC) $(CFLAGS) $(ASANFLAGS) -o $@ $(AOBJS) $(LDLIBS)
build/asan/tests/%: tests/unit/%.c $(ALIBOBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASANFLAGS) -Wno-unused-parameter -o $@ $< \
	  $(ALIBOBJS) $(LDLIBS) -lcmocka

SAMPLE_ARCHIVE = dataset/samples/archive
SAMPLE_PROBLEMS = dataset/samples/problems
SAMPLE_DUMP = dataset/samples/archive/leaderboard/records.jsonl
SAMPLE_MAP = dataset/maps/sample-leaderboard.json
DB ?= headroom.db

# The newcomer's command: install what is missing, build, ingest the
# embedded sample, show what was stored.
run: deps
	@$(MAKE) --no-print-directory headroom verify-libs replay-libs
	./headroom --db $(DB) problems add $(SAMPLE_PROBLEMS)
	./headroom --db $(DB) ingest $(SAMPLE_ARCHIVE)
	./headroom --db $(DB) ingest $(SAMPLE_DUMP) --map $(SAMPLE_MAP)
	./headroom --db $(DB) ls
	@$(MAKE) --no-print-directory report-outputs DB=$(DB)

check: deps-check
	@$(MAKE) --no-print-directory -j$(NPROC) headroom build/asan/headroom \
	  verify-libs replay-libs $(UNIT_BINS)
	@$(FIND_PY) PYTHON=$$PY sh tests/run.sh $(UNIT_BINS)
test: check

bench: headroom
	@sh tests/bench/run.sh
	@$(MAKE) --no-print-directory bench-verify

clean:
	rm -rf build headroom

-include $(wildcard $(addsuffix /*.mk,$(STAGES)))
-include tests/fuzz/fuzz.mk
-include paper/paper.mk
-include $(OBJS:.o=.d) $(AOBJS:.o=.d)
