# teil - a checked toolchain for tensor kernels.
#
#   make            build build/bin/{teil-check,teil-run,...} and build/lib/libteil.a
#   make test       install test dependencies (Debian), run every test, also under ASan+UBSan
#   make demo       install dependencies, then check and run the bundled examples
#   make proofs     build the Coq development (proofs/) and teil-spec
#   make acsl       Frama-C WP proofs (acsl/)
#   make bench      build, then run the benchmark (bench/README.md); BENCH_QUICK=1 for a smoke test
#   make clean
#
# CI=true adds -Werror.

CC      ?= gcc
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Wshadow -Wmissing-prototypes -Wswitch-enum -Wno-format-truncation
ifeq ($(CI),true)
WARN    += -Werror
endif
CPPFLAGS := -Iinclude -Isrc -D_POSIX_C_SOURCE=200809L
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDLIBS  := -lm

LIB_SRC  := $(sort $(wildcard src/*.c))
TOOLS    := $(patsubst src/tools/%.c,%,$(filter-out src/tools/cli.c,$(wildcard src/tools/*.c)))
HDRS     := $(wildcard include/*.h include/*.def src/*.h src/tools/*.h)

B := build

all: $(B)/lib/libteil.a $(TOOLS:%=$(B)/bin/%) $(B)/bin/npycmp

# ---- normal build
$(B)/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -c $< -o $@

$(B)/lib/libteil.a: $(LIB_SRC:src/%.c=$(B)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/bin/%: $(B)/obj/tools/%.o $(B)/obj/tools/cli.o $(B)/lib/libteil.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(LDLIBS)

$(B)/bin/npycmp: tests/tools/npycmp.c src/npy.c src/npy.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) tests/tools/npycmp.c src/npy.c -o $@ $(LDLIBS)

$(B)/bin/teilgen: tests/tools/teilgen.c src/npy.c src/npy.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) tests/tools/teilgen.c src/npy.c -o $@ $(LDLIBS)

# ---- sanitizer build (ASan + UBSan), used by the tests
$(B)/san/obj/%.o: src/%.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) -O1 -g $(SAN) -c $< -o $@

$(B)/san/lib/libteil.a: $(LIB_SRC:src/%.c=$(B)/san/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(B)/san/bin/%: $(B)/san/obj/tools/%.o $(B)/san/obj/tools/cli.o $(B)/san/lib/libteil.a
	@mkdir -p $(dir $@)
	$(CC) -g $(SAN) $^ -o $@ $(LDLIBS)

# ---- unit tests (cmocka), built against both libraries
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT     := $(UNIT_SRC:tests/unit/%.c=$(B)/test/%) $(UNIT_SRC:tests/unit/%.c=$(B)/san/test/%)

$(B)/test/%: tests/unit/%.c tests/unit/unit.h $(B)/lib/libteil.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) $(CFLAGS) -Wno-missing-prototypes $< $(B)/lib/libteil.a -o $@ -lcmocka $(LDLIBS)

$(B)/san/test/%: tests/unit/%.c tests/unit/unit.h $(B)/san/lib/libteil.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) -O1 -g $(SAN) -Wno-missing-prototypes $< $(B)/san/lib/libteil.a -o $@ -lcmocka $(LDLIBS)

# ---- the fuzzers as plain programs under ASan + UBSan (tests/fuzz/run.sh)
FUZZ := $(B)/san/fuzz/fuzz_parse $(B)/san/fuzz/fuzz_sched $(B)/san/fuzz/fuzz_npy

$(B)/san/fuzz/fuzz_parse: tests/fuzz/fuzz_parse.c $(B)/san/lib/libteil.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) -O1 -g $(SAN) -Wno-missing-prototypes -DFUZZ_MAIN $< $(B)/san/lib/libteil.a -o $@ $(LDLIBS)

$(B)/san/fuzz/fuzz_sched: tests/fuzz/fuzz_sched.c $(B)/san/lib/libteil.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) -O1 -g $(SAN) -Wno-missing-prototypes -DFUZZ_SCHED_MAIN $< $(B)/san/lib/libteil.a -o $@ $(LDLIBS)

$(B)/san/fuzz/fuzz_npy: tests/fuzz/fuzz_npy.c src/npy.c src/npy.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(WARN) -O1 -g $(SAN) -Wno-missing-prototypes -DNPY_FUZZ_MAIN $< src/npy.c -o $@ $(LDLIBS)

deps:
	sh tests/deps.sh test

test-build: all $(B)/bin/teilgen $(TOOLS:%=$(B)/san/bin/%) $(UNIT) $(FUZZ)

# the two builds are independent: one make builds both, as many jobs at a time as CPUs
NPROC   := $(shell nproc 2>/dev/null || echo 2)

test: deps
	$(MAKE) -j$(NPROC) test-build proofs-build
	sh tests/run-all.sh

demo:
	sh tests/deps.sh demo
	$(MAKE) all
	sh examples/demo.sh

proofs:
	sh tests/deps.sh proofs
	$(MAKE) proofs-build

proofs-build:
	$(MAKE) -C proofs
	$(MAKE) -C proofs spec-bin

bench:
	sh tests/deps.sh bench
	$(MAKE) all
	sh bench/run.sh
	sh bench/lift.sh

acsl:
	sh tests/deps.sh acsl
	$(MAKE) all
	sh acsl/run.sh

clean:
	rm -rf $(B)
	-$(MAKE) -C proofs clean >/dev/null 2>&1

.PHONY: all deps test test-build demo proofs proofs-build acsl bench clean
.SECONDARY:
