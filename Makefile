# headroom - build, test, run.  See README.md; `make help` lists targets.
#
# Everything under dataset/ profile/ verify/ replay/ readmodel/ report/
# figures/ is one program, ./headroom.  A folder may add its own rules in
# <folder>/<folder>.mk.

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
LDLIBS   = $(SYS_LDFLAGS) -larchive -lcjson -lsqlite3 -lcrypto -lyajl -lz -lm
ASANFLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all

STAGES   = dataset profile verify replay readmodel report figures cli
# dataset/base/: the shared base below every stage (err, text, the CLI
# helpers, tables, output folders, runtime files); see docs/architecture.md.
SRCS     = $(sort $(wildcard $(addsuffix /*.c,$(STAGES)) dataset/base/*.c))
LIBSRCS  = $(filter-out cli/main.c,$(SRCS))
OBJS     = $(SRCS:%.c=build/%.o) build/version.o build/prefix.o
LIBOBJS  = $(LIBSRCS:%.c=build/%.o) build/version.o build/prefix.o
AOBJS    = $(SRCS:%.c=build/asan/%.o) build/asan/version.o build/asan/prefix.o
ALIBOBJS = $(LIBSRCS:%.c=build/asan/%.o) build/asan/version.o \
           build/asan/prefix.o
UNIT_SRCS = $(sort $(wildcard tests/unit/test_*.c))
UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=build/asan/tests/%)

NPROC := $(shell nproc 2>/dev/null || echo 2)
# The commit, and for a tree that differs from it -- a changed tracked
# file or an untracked one that is not ignored (a new .c is compiled in) --
# "-dirty" and the tree's own hash (tests/gpu/tree-hash.sh: names and
# contents of those files), so a build from a copy with stale git metadata
# -- the GPU machine's -- still says what it was built from.
VERSION := $(shell v=$$(git describe --always 2>/dev/null) || v=unknown; \
	[ "$$v" = unknown ] || [ -z "$$(git status --porcelain 2>/dev/null)" ] || \
	v="$$v-dirty+tree.$$(sh tests/gpu/tree-hash.sh)"; echo "$$v")

# Runtime files (dataset/base/runfiles.h): PREFIX/libexec/headroom (the worker,
# its libraries) and PREFIX/share/headroom (ledger, maps, gnuplot scripts,
# the static rules).
# ./headroom and build/asan/headroom have PREFIX = this tree's build/,
# whose two folders link to the sources (build/.runtime-links); `make
# install` links a copy for $(PREFIX) and copies the files there.
PREFIX  ?= /usr/local
DESTDIR ?=
INSTALL ?= install
TREE_PREFIX := $(CURDIR)/build
LIBEXEC_LINKS = worker.py:../../../replay/worker.py \
                hrworker:../../../replay/hrworker \
                libhrverify.so:../../libhrverify.so \
                libhrverify_cuda.so:../../libhrverify_cuda.so \
                libhrrand.so:../../libhrrand.so \
                profile_worker.py:../../../profile/profile_worker.py \
                slurm-replay.sh:../../../replay/slurm-replay.sh
SHARE_LINKS   = claims.json:../../../paper/claims.json \
                roles.json:../../../paper/roles.json \
                maps:../../../dataset/maps figures:../../../figures \
                static-rules.conf:../../../replay/static-rules.conf \
                problem-classes.rules:../../../paper/problem-classes.rules \
                dlrm-kernel-classes.json:../../../dataset/problems/dlrm-bench/kernel-classes.json

.PHONY: all run check test bench deps deps-check deps-figures deps-run \
        clean help gpu-check figures paper install uninstall FORCE
all: headroom

help:
	@echo "make run        ingest the sample archive into ./headroom.db, list it,"
	@echo "                write its tables (out/report) and figures (out/figures)"
	@echo "make check      build with sanitizers and run every test (CI calls this)"
	@echo "make install    PREFIX=/usr/local DESTDIR=: bin/headroom,"
	@echo "                libexec/headroom/ (worker, libraries), share/headroom/"
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
deps-run:
	@sh .ci/deps.sh build figures

# version.c is rewritten only when the version string changes.
build/version.c: FORCE
	@mkdir -p build
	@printf '#include "../dataset/base/version.h"\nconst char *hr_version(void) { return "%s"; }\n' \
	  '$(VERSION)' > $@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# The compiled-in prefix of runfiles.h, rewritten like version.c; a path
# that a C string or the shell cannot hold is refused.
define prefix_c
	@mkdir -p $(dir $(1))
	@case '$(2)' in (*[\"\\\']*|'') echo "prefix '$(2)': no quotes or backslashes" >&2; exit 2 ;; esac
	@printf '#include "%s/dataset/base/runfiles.h"\nconst char *runfiles_builtin_prefix(void) { return "%s"; }\n' \
	  '$(CURDIR)' '$(2)' > $(1).tmp
	@cmp -s $(1).tmp $(1) && rm -f $(1).tmp || mv $(1).tmp $(1)
endef
build/prefix.c: FORCE
	$(call prefix_c,$@,$(TREE_PREFIX))
build/install/prefix.c: FORCE
	$(call prefix_c,$@,$(PREFIX))
build/prefix.o: build/prefix.c
	$(CC) $(CFLAGS) -c $< -o $@
build/asan/prefix.o: build/prefix.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASANFLAGS) -c $< -o $@
build/install/prefix.o: build/install/prefix.c
	$(CC) $(CFLAGS) -c $< -o $@

# The tree's runtime folders: relative links into the sources, so that an
# edited worker.py runs as it is.  A library not built yet is a dangling
# link, found by nobody (as a missing file).
build/.runtime-links: Makefile
	@mkdir -p build/libexec/headroom build/share/headroom
	@for l in $(LIBEXEC_LINKS); do \
	  ln -sfn "$${l#*:}" "build/libexec/headroom/$${l%%:*}" || exit 1; done
	@for l in $(SHARE_LINKS); do \
	  ln -sfn "$${l#*:}" "build/share/headroom/$${l%%:*}" || exit 1; done
	@touch $@

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

# The libraries replay and audit load come with the program: a replay
# without the verify library could not call anything verified-faster.
headroom: $(OBJS) | build/.runtime-links build/libhrverify.so \
                    build/libhrrand.so
	$(CC) $(CFLAGS) -o $@ $(OBJS) $(LDLIBS)
build/asan/headroom: $(AOBJS) | build/.runtime-links
	$(CC) $(CFLAGS) $(ASANFLAGS) -o $@ $(AOBJS) $(LDLIBS)
build/install/headroom: $(filter-out build/prefix.o,$(OBJS)) build/install/prefix.o
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
build/asan/tests/%: tests/unit/%.c $(ALIBOBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(ASANFLAGS) -Wno-unused-parameter -o $@ $< \
	  $(ALIBOBJS) $(LDLIBS) -lcmocka

SAMPLE_ARCHIVE = dataset/samples/archive
SAMPLE_PROBLEMS = dataset/samples/problems
SAMPLE_DUMP = dataset/samples/archive/leaderboard/records.jsonl
SAMPLE_MAP = dataset/maps/sample-leaderboard.json
SAMPLE_PROFILES = $(sort $(wildcard dataset/samples/profiles/*.pt.trace.json.gz))
DLRM_PROBLEMS = dataset/problems/dlrm-bench
SAMPLE_DLRM_ARCHIVE = dataset/samples/dlrm-archive
# The sample's CPU-runnable run (C++ extensions): without a GPU, make run
# replays its model only (report/report.mk, CPU_REPLAY_MODEL).
SAMPLE_CPU_ARCHIVE = dataset/samples/cpu-archive
SAMPLE_CPU_MODEL = headroom-cpu-sample
DB ?= headroom.db
# The sample's DLRM profile (dataset/samples/profiles), the workload that
# weighs DLRM-Bench in make run's report and figures.
SAMPLE_DLRM_WORKLOAD = sample-dlrm

# The newcomer's command: install what is missing (gnuplot too: the
# figures are outputs), build, ingest the embedded sample, show what was
# stored, write the tables and figures.
run: deps-run
	@$(MAKE) --no-print-directory headroom verify-libs replay-libs
	./headroom --db $(DB) problems add $(SAMPLE_PROBLEMS)
	./headroom --db $(DB) problems add $(DLRM_PROBLEMS)
	./headroom --db $(DB) ingest $(SAMPLE_ARCHIVE)
	./headroom --db $(DB) ingest $(SAMPLE_DLRM_ARCHIVE)
	./headroom --db $(DB) ingest $(SAMPLE_CPU_ARCHIVE)
	./headroom --db $(DB) ingest $(SAMPLE_DUMP) --map $(SAMPLE_MAP)
	./headroom --db $(DB) ingest $(SAMPLE_PROFILES)
	./headroom --db $(DB) ls
	@$(MAKE) --no-print-directory report-outputs DB=$(DB) \
	  DLRM_WORKLOAD=$(SAMPLE_DLRM_WORKLOAD) CPU_REPLAY_MODEL=$(SAMPLE_CPU_MODEL)

check: deps-check
	@$(MAKE) --no-print-directory -j$(NPROC) headroom build/asan/headroom \
	  verify-libs replay-libs $(UNIT_BINS)
	@$(FIND_PY) PYTHON=$$PY sh tests/run.sh $(UNIT_BINS)
test: check

bench: headroom
	@sh tests/bench/run.sh
	@$(MAKE) --no-print-directory bench-verify

# Installed layout: see runfiles.h.  The CUDA verify library goes along
# when it was built (make verify-cuda).
BINDIR     = $(DESTDIR)$(PREFIX)/bin
LIBEXECDIR = $(DESTDIR)$(PREFIX)/libexec/headroom
SHAREDIR   = $(DESTDIR)$(PREFIX)/share/headroom
MAN1DIR    = $(DESTDIR)$(PREFIX)/share/man/man1
install: build/install/headroom verify-libs replay-libs
	$(INSTALL) -d $(BINDIR) $(LIBEXECDIR)/hrworker $(SHAREDIR)/maps \
	  $(SHAREDIR)/figures $(MAN1DIR)
	$(INSTALL) -m 755 build/install/headroom $(BINDIR)/headroom
	$(INSTALL) -m 644 replay/worker.py $(LIBEXECDIR)/worker.py
	$(INSTALL) -m 644 profile/profile_worker.py $(LIBEXECDIR)/profile_worker.py
	$(INSTALL) -m 755 replay/slurm-replay.sh $(LIBEXECDIR)/slurm-replay.sh
	$(INSTALL) -m 644 replay/hrworker/*.py $(LIBEXECDIR)/hrworker/
	$(INSTALL) -m 755 build/libhrverify.so build/libhrrand.so $(LIBEXECDIR)/
	@if [ -e build/libhrverify_cuda.so ]; then \
	  echo "$(INSTALL) -m 755 build/libhrverify_cuda.so $(LIBEXECDIR)/"; \
	  $(INSTALL) -m 755 build/libhrverify_cuda.so $(LIBEXECDIR)/; fi
	$(INSTALL) -m 644 paper/claims.json paper/roles.json replay/static-rules.conf \
	  paper/problem-classes.rules $(SHAREDIR)/
	$(INSTALL) -m 644 dataset/problems/dlrm-bench/kernel-classes.json \
	  $(SHAREDIR)/dlrm-kernel-classes.json
	$(INSTALL) -m 644 dataset/maps/*.json dataset/maps/*.rules dataset/maps/README.md \
	  $(SHAREDIR)/maps/
	$(INSTALL) -m 644 figures/*.gp $(SHAREDIR)/figures/
	$(INSTALL) -m 644 docs/headroom.1 $(MAN1DIR)/headroom.1
# The folders install made, deepest first, each only when now empty.
INSTALL_DIRS = $(BINDIR) $(DESTDIR)$(PREFIX)/libexec $(MAN1DIR) \
               $(DESTDIR)$(PREFIX)/share/man $(DESTDIR)$(PREFIX)/share \
               $(DESTDIR)$(PREFIX)
uninstall:
	rm -f $(BINDIR)/headroom $(MAN1DIR)/headroom.1
	rm -rf $(LIBEXECDIR) $(SHAREDIR)
	@for d in $(INSTALL_DIRS); do \
	  if [ -d "$$d" ] && [ -z "$$(ls -A "$$d")" ]; then \
	    echo "rmdir $$d"; rmdir "$$d" || exit 1; fi; done

clean:
	rm -rf build headroom

-include $(wildcard $(addsuffix /*.mk,$(STAGES)))
-include tests/fuzz/fuzz.mk
-include paper/paper.mk
-include $(OBJS:.o=.d) $(AOBJS:.o=.d)
