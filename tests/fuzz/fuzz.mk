# fuzz.mk - `make fuzz [FUZZ_SECONDS=N]`: every fuzz target of tests/fuzz/
# built with clang's libFuzzer, ASan and UBSan, each run for N seconds
# (default 60) from its seed corpus; new inputs go to build/fuzz/corpus/,
# findings to build/fuzz/findings/.  Not part of `make check`, which
# replays the committed corpora without mutation instead
# (tests/unit/test_fuzz_corpora.c, gcc, no clang needed).

FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_TARGETS  = archive kernelbench problems export leaderboard npy \
                trace_chrome trace_nsys merge
FUZZ_SAN      = -fsanitize=address,undefined -fno-sanitize-recover=all \
                -fno-omit-frame-pointer
FUZZ_CFLAGS   = $(CSTD) $(WARN) -O1 -g $(SYS_CPPFLAGS) $(FUZZ_SAN)
# The readers (dataset/'s and profile/'s) and what they need: the whole
# shared base (the store takes its times from clock.c, the selection its
# numbers from cli.c, which finds runtime files through runfiles.c and the
# generated prefix.c), and the merge of shard stores; no command layer.
FUZZ_LIBSRCS  = $(filter-out dataset/cmd_%.c,$(wildcard dataset/*.c)) \
                $(filter-out profile/cmd_%.c,$(wildcard profile/*.c)) \
                $(wildcard dataset/base/*.c) replay/merge.c \
                verify/npy.c verify/verify.c tests/fuzz/fuzz_common.c
FUZZ_LIBOBJS  = $(FUZZ_LIBSRCS:%.c=build/fuzz/obj/%.o) \
                build/fuzz/obj/version.o build/fuzz/obj/prefix.o
FUZZ_BINS     = $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)

.PHONY: fuzz fuzz-build
fuzz-build: $(FUZZ_BINS)
fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

build/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -MMD -MP \
	  -c $< -o $@
build/fuzz/obj/version.o: build/version.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
build/fuzz/obj/prefix.o: build/prefix.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIBOBJS)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< \
	  $(FUZZ_LIBOBJS) $(LDLIBS)

-include $(FUZZ_LIBOBJS:.o=.d)
# Made by a pattern rule for a pattern rule: kept, not removed as
# intermediate files (the next build would compile them again).
.SECONDARY: $(FUZZ_LIBOBJS)

# The corpus replay includes the targets' sources (see its header).
build/asan/tests/test_fuzz_corpora: $(wildcard tests/fuzz/*.c tests/fuzz/*.h)
