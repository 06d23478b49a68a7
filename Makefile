# SPDX-License-Identifier: Apache-2.0
# spt -- plain GNU make.
#   make            the Debian packages the build needs, then build/libspt.a, build/libspt.so, build/spt
#   make run        build and run the walkthrough on data/
#   make test       build and run every test, plainly and under ASan + UBSan (installs what it needs)
#   make bench      benchmarks against the peers          make fuzz   libFuzzer harnesses
#   make memcheck   unit tests under valgrind             make install PREFIX=/usr/local (DESTDIR=...)
#   make uninstall  what install wrote                    make doc    build/doc: API reference, spt(3)
# Options: OPENMP=0 (serial build), MPI=1 (distributed layer), WERROR=1, V=1.

CC      ?= cc
OPENMP  ?= 1
WERROR  ?= 0
PREFIX  ?= /usr/local
PYTHON  ?= /usr/bin/python3

CSTD     = -std=c11 -D_GNU_SOURCE
WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-unknown-pragmas
ifeq ($(WERROR),1)
WARN    += -Werror
endif
OMPFLAG  = $(if $(filter 1,$(OPENMP)),-fopenmp,)
CPPFLAGS = -Iinclude -Isrc
CFLAGS_REL  = $(CSTD) $(WARN) -O2 -g -fPIC $(OMPFLAG)
CFLAGS_SAN  = $(CSTD) $(WARN) -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined $(OMPFLAG)
LDLIBS_LIB  = -lm
PKG_LIBS    = $(shell pkg-config --libs libpng libarchive libdeflate zlib 2>/dev/null)
# libzip: only the tests and fuzz harnesses, which check spt's own zip code against another implementation
ZIP_LIBS    = $(shell pkg-config --libs libzip 2>/dev/null)
TEST_LIBS   = -lcmocka -ljansson $(ZIP_LIBS)

LIB_SRC   := $(sort $(wildcard src/core/*.c src/sort/*.c src/ops/*/*.c src/io/*.c src/tot/*.c src/tf/*.c))
CLI_SRC   := $(sort $(wildcard cli/*.c))
TEST_SUP  := $(sort $(wildcard tests/support/*.c))
TEST_SRC  := $(sort $(wildcard tests/*/test_*.c tests/*/*/test_*.c))
CONF_SRC  := $(sort $(wildcard tests/conformance/*.c))
# the C tests that hold conformance handlers (their SPT_CONFORMANCE part goes into the runner)
CONF_TESTS := $(shell grep -l '^.ifndef SPT_CONFORMANCE' $(TEST_SRC))
CONF_FLAGS = -DSPT_CONFORMANCE -Itests/conformance
HDRS      := $(wildcard include/*.h include/*.def src/*/*.h src/*/*.def src/*/*/*.h)
# Objects depend on the headers they include (-MMD -MP: build/.../x.d next to x.o, read back below);
# the programs compiled and linked in one step (tests, conformance, benches) on every header.
DEPFLAGS   = -MMD -MP -MF $(@:.o=.d) -MT $@
TEST_HDRS := $(wildcard tests/*/*.h)

REL = build
SAN = build/san

LIB_OBJ_REL := $(LIB_SRC:%.c=$(REL)/obj/%.o)
LIB_OBJ_SAN := $(LIB_SRC:%.c=$(SAN)/obj/%.o)
TESTS_REL   := $(TEST_SRC:tests/%.c=$(REL)/tests/%)
TESTS_SAN   := $(TEST_SRC:tests/%.c=$(SAN)/tests/%)

.PHONY: all run test test-c test-san test-conformance test-python deps bench fuzz memcheck install clean
.SECONDARY:

# Plain `make`: the Debian packages the build needs (tools/install-deps.sh build), then `all` in a new make,
# which reads the libraries' flags (pkg-config) after they are installed.
.DEFAULT_GOAL := default
default:
	@sh tools/install-deps.sh build
	@$(MAKE) --no-print-directory all
.PHONY: default

all: $(REL)/libspt.a $(REL)/libspt.so $(REL)/spt

$(REL)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_REL) $(DEPFLAGS) -c $< -o $@
$(SAN)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_SAN) $(DEPFLAGS) -c $< -o $@

$(REL)/libspt.a: $(LIB_OBJ_REL)
	@rm -f $@; ar rcs $@ $^
$(REL)/libspt.so: $(LIB_OBJ_REL) src/libspt.map
	$(CC) -shared $(OMPFLAG) $(SO_LDFLAGS) -o $@ $(LIB_OBJ_REL) $(LDLIBS_LIB) $(PKG_LIBS)
	@ln -sf libspt.so $(REL)/libspt.so.$(SPT_MAJOR)
$(SAN)/libspt.a: $(LIB_OBJ_SAN)
	@rm -f $@; ar rcs $@ $^

$(REL)/spt: $(CLI_SRC:%.c=$(REL)/obj/%.o) $(REL)/libspt.a
	$(CC) $(OMPFLAG) -o $@ $^ $(LDLIBS_LIB) $(PKG_LIBS)

# Each tests/<dir>/test_<name>.c is one cmocka program linked with the shared test support.
$(REL)/tests/%: tests/%.c $(TEST_SUP) $(REL)/libspt.a $(HDRS) $(TEST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/support $(CFLAGS_REL) -o $@ $< $(TEST_SUP) $(REL)/libspt.a $(TEST_LIBS) $(LDLIBS_LIB) $(PKG_LIBS)
$(SAN)/tests/%: tests/%.c $(TEST_SUP) $(SAN)/libspt.a $(HDRS) $(TEST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/support $(CFLAGS_SAN) -o $@ $< $(TEST_SUP) $(SAN)/libspt.a $(TEST_LIBS) $(LDLIBS_LIB) $(PKG_LIBS)

# The conformance runner: every vector of tests/conformance/*.jsonl.
$(REL)/conformance: $(CONF_SRC) $(CONF_TESTS) $(TEST_SUP) $(REL)/libspt.a $(HDRS) $(TEST_HDRS)
	$(CC) $(CPPFLAGS) -Itests/support $(CONF_FLAGS) $(CFLAGS_REL) -o $@ $(CONF_SRC) $(CONF_TESTS) $(TEST_SUP) $(REL)/libspt.a $(TEST_LIBS) $(LDLIBS_LIB) $(PKG_LIBS)
$(SAN)/conformance: $(CONF_SRC) $(CONF_TESTS) $(TEST_SUP) $(SAN)/libspt.a $(HDRS) $(TEST_HDRS)
	$(CC) $(CPPFLAGS) -Itests/support $(CONF_FLAGS) $(CFLAGS_SAN) -o $@ $(CONF_SRC) $(CONF_TESTS) $(TEST_SUP) $(SAN)/libspt.a $(TEST_LIBS) $(LDLIBS_LIB) $(PKG_LIBS)

# make run: the walkthrough (examples/walkthrough.sh): a C program, the spt command and Python on data/.
run:
	@sh tools/install-deps.sh build
	@$(MAKE) --no-print-directory all $(REL)/examples/walkthrough
	@sh examples/walkthrough.sh $(REL) $(PYTHON)

export ASAN_OPTIONS = allocator_may_return_null=1:detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS = print_stacktrace=1:halt_on_error=1

# make test: dependencies, then the C tests plain and sanitized, the conformance vectors, python tests.
test: deps
	@rm -f build/test-summary
	@$(MAKE) --no-print-directory test-shape check-format test-c test-san test-fuzz-replay test-tsan
	@$(MAKE) --no-print-directory test-python
	@$(MAKE) --no-print-directory test-io-peers
	@$(MAKE) --no-print-directory test-install
	@if command -v $(MPICC) >/dev/null 2>&1; then $(MAKE) --no-print-directory test-mpi; else echo "make test: no $(MPICC), test-mpi skipped"; fi
	@echo "make test: all suites passed"
	@awk '{p += $$1; f += $$2} END {printf "total: %d passed, %d failed\n", p, f}' build/test-summary

deps:
	@sh tools/install-deps.sh

# make test-shape: the shape of src/ (tools/check-src-shape.py): no include cycle, no .c file at the top of
# src/ops/, no function over 120 lines, no macro over 15 lines.
test-shape:
	@$(PYTHON) tools/check-src-shape.py
.PHONY: test-shape

# The suite runs the parallel paths on its small inputs too (spt__threads_for's bound off).
test-c test-san test-tsan: export SPT_PAR_MIN_WORK = 0
test-c: all $(TESTS_REL) $(REL)/conformance
	@sh tools/run-tests.sh plain $(TESTS_REL) -- $(REL)/conformance tests/conformance

test-san: $(TESTS_SAN) $(SAN)/conformance
	@sh tools/run-tests.sh sanitizers $(TESTS_SAN) -- $(SAN)/conformance tests/conformance

test-python: all
	@if [ -d python/tests ]; then cd python && PYTHONPATH=. SPT_LIB=../$(REL)/libspt.so $(PYTHON) -m pytest -q tests; fi

# ==== fuzzing, corpus replay, memcheck (fuzz/) ====
# make fuzz: libFuzzer binaries build/fuzz/fuzz_<h> (clang, ASan+UBSan, serial: no OpenMP), one per
# fuzz/fuzz_<h>.c (one harness per op family, core, tot, the CLI, and one per file format); run e.g. build/fuzz/fuzz_core fuzz/corpus/core. test-fuzz-replay: the same harnesses
# linked with fuzz/replay.c (no libFuzzer) under ASan+UBSan replay every fuzz/corpus/<h>/ file.
# make memcheck: every unit test and the conformance runner under valgrind (fuzz/memcheck.sh).
FUZZ_CC      ?= clang
FUZZ_CFLAGS   = $(CSTD) -Wall -Wextra -Wno-unknown-pragmas -Wno-unused-variable -Wno-unused-but-set-variable -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize-recover=pointer-overflow,signed-integer-overflow
FUZZ_NAMES   := $(sort $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c)))
FUZZ_DEPS    := fuzz/fz.c fuzz/fz.h
LIB_OBJ_FUZZ := $(LIB_SRC:%.c=$(REL)/fuzz/obj/%.o)
$(REL)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c $< -o $@
$(REL)/fuzz/libspt.a: $(LIB_OBJ_FUZZ)
	@rm -f $@; ar rcs $@ $^
$(REL)/fuzz/fuzz_%: fuzz/fuzz_%.c $(FUZZ_DEPS) $(REL)/fuzz/libspt.a
	$(FUZZ_CC) $(CPPFLAGS) -Ifuzz $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< fuzz/fz.c $(REL)/fuzz/libspt.a $(LDLIBS_LIB) $(PKG_LIBS) $(ZIP_LIBS)
$(SAN)/fuzz/replay_%: fuzz/fuzz_%.c fuzz/replay.c $(FUZZ_DEPS) $(SAN)/libspt.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ifuzz $(CFLAGS_SAN) -o $@ fuzz/replay.c $< fuzz/fz.c $(SAN)/libspt.a $(LDLIBS_LIB) $(PKG_LIBS) $(ZIP_LIBS)
# fuzz_cli also links the command's sources (not its main): cli_parse and each command's run
FUZZ_CLI_SRC := $(filter-out cli/main.c cli/mpi_main.c cli/demo.c cli/demo_args.c,$(CLI_SRC))
$(REL)/fuzz/fuzz_cli: fuzz/fuzz_cli.c $(FUZZ_DEPS) $(FUZZ_CLI_SRC) cli/cli.h $(REL)/fuzz/libspt.a
	$(FUZZ_CC) $(CPPFLAGS) -Ifuzz -Icli $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< fuzz/fz.c $(FUZZ_CLI_SRC) $(REL)/fuzz/libspt.a $(LDLIBS_LIB) $(PKG_LIBS)
$(SAN)/fuzz/replay_cli: fuzz/fuzz_cli.c fuzz/replay.c $(FUZZ_DEPS) $(FUZZ_CLI_SRC) cli/cli.h $(SAN)/libspt.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ifuzz -Icli $(CFLAGS_SAN) -o $@ fuzz/replay.c $< fuzz/fz.c $(FUZZ_CLI_SRC) $(SAN)/libspt.a $(LDLIBS_LIB) $(PKG_LIBS)
fuzz: $(FUZZ_NAMES:%=$(REL)/fuzz/fuzz_%)
test-fuzz-replay: $(FUZZ_NAMES:%=$(SAN)/fuzz/replay_%)
	@for h in $(FUZZ_NAMES); do \
	  $(SAN)/fuzz/replay_$$h fuzz/corpus/$$h > $(SAN)/fuzz/replay_$$h.log 2>&1 \
	    || { cat $(SAN)/fuzz/replay_$$h.log; echo "[fuzz-replay] $$h FAILED"; exit 1; }; \
	  echo "[fuzz-replay] $$h: $$(tail -n 1 $(SAN)/fuzz/replay_$$h.log)"; \
	done
memcheck: all $(TESTS_REL) $(REL)/conformance
	@sh fuzz/memcheck.sh $(TESTS_REL) -- $(REL)/conformance tests/conformance
.PHONY: test-fuzz-replay
# ==== end fuzzing block ====

# ==== formatting (.clang-format, clang-format 14) ====
# make format: apply .clang-format to the C sources; make check-format: fail naming each file it would
# change (part of make test, after test-shape). tools/verify-format-noop.sh proves a format changes no code.
FORMAT_SRC = $(shell git ls-files -co --exclude-standard 'src/*.c' 'src/*.h' 'include/*.h' 'cli/*.c' 'cli/*.h' \
               'tests/*.c' 'tests/*.h' 'fuzz/*.c' 'fuzz/*.h' 'bench/*.c' 'bench/*.h' 2>/dev/null)
format:
	@clang-format -i $(FORMAT_SRC)
check-format:
	@bad=0; for f in $(FORMAT_SRC); do clang-format --dry-run -Werror "$$f" >/dev/null 2>&1 \
	  || { echo "check-format: $$f is not formatted (make format)"; bad=1; }; done; exit $$bad
.PHONY: format check-format

# ==== MPI (src/mpi/, include/spt_mpi.h, tests/mpi/) ====
# The distributed layer is compiled with mpicc into build/libspt_mpi.a (link it before build/libspt.a);
# the core never includes mpi.h. `make MPI=1` adds it to `all`. make test-mpi: tests/mpi/mpi_test at
# mpirun -np $(MPI_NP), oversubscribed, loopback/shared memory only,
# plain and under ASan+UBSan, again at np 2 and 3 over TCP on loopback (btl self,tcp), then
# tests/mpi/cli_mpi.sh (build/spt-mpi vs build/spt, byte for byte), mpi_test --small at np $(MPI_NP_MANY)
# (8 and 16 ranks on this machine's cores, oversubscribed), and tests/mpi/python_mpi.sh (spt.mpi through
# build/libspt_mpi.so: python/tests/mpi_check.py at np $(MPI_NP) and, --small, $(MPI_NP_MANY); Ctrl-C).
# make mpi-bench: tests/mpi/mpi_bench (10^7-entry distributed reorder vs serial spt_reorder).
MPICC    ?= mpicc
MPIRUN   ?= mpirun
MPI_NP   ?= 1 2 3 4
MPI_NP_MANY ?= 8 16
MPI_SRC  := $(sort $(wildcard src/mpi/*.c))
MPI_HDRS := include/spt_mpi.h $(wildcard src/mpi/priv/*.h)
MPI_ENV   = OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
            OMPI_MCA_btl=self,vader OMPI_MCA_oob_tcp_if_include=lo HWLOC_COMPONENTS=-gl OMP_NUM_THREADS=1
# (outputs are written under a temporary name and renamed: concurrent makes in one tree never run or
# link a half-written file)
$(REL)/mpi/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(CFLAGS_REL) $(DEPFLAGS) -c $< -o $@.$$$$.tmp && mv -f $@.$$$$.tmp $@
$(REL)/libspt_mpi.a: $(MPI_SRC:%.c=$(REL)/mpi/obj/%.o)
	@ar rcs $@.$$$$.tmp $^ && mv -f $@.$$$$.tmp $@
$(REL)/tests/mpi/mpi_%: tests/mpi/mpi_%.c $(REL)/libspt_mpi.a $(REL)/libspt.a $(HDRS) $(MPI_HDRS)
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(CFLAGS_REL) -o $@.$$$$.tmp $< $(REL)/libspt_mpi.a $(REL)/libspt.a $(LDLIBS_LIB) $(PKG_LIBS) && mv -f $@.$$$$.tmp $@
$(SAN)/mpi/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(CFLAGS_SAN) $(DEPFLAGS) -c $< -o $@.$$$$.tmp && mv -f $@.$$$$.tmp $@
$(SAN)/libspt_mpi.a: $(MPI_SRC:%.c=$(SAN)/mpi/obj/%.o)
	@ar rcs $@.$$$$.tmp $^ && mv -f $@.$$$$.tmp $@
$(SAN)/tests/mpi/mpi_%: tests/mpi/mpi_%.c $(SAN)/libspt_mpi.a $(SAN)/libspt.a $(HDRS) $(MPI_HDRS)
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(CFLAGS_SAN) -o $@.$$$$.tmp $< $(SAN)/libspt_mpi.a $(SAN)/libspt.a $(LDLIBS_LIB) $(PKG_LIBS) && mv -f $@.$$$$.tmp $@
# plain, then under ASan + UBSan (leak checking off: Open MPI's own allocations; the test counts spt's)
test-mpi: $(REL)/tests/mpi/mpi_test $(SAN)/tests/mpi/mpi_test $(REL)/spt $(REL)/spt-mpi $(REL)/libspt_mpi.so
	@for np in $(MPI_NP); do \
	  $(MPI_ENV) timeout 600 $(MPIRUN) --quiet -np $$np $(REL)/tests/mpi/mpi_test || { echo "[mpi] np=$$np FAILED"; exit 1; }; \
	done
	@for np in $(MPI_NP); do \
	  $(MPI_ENV) ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 timeout 600 $(MPIRUN) --quiet -np $$np \
	    $(SAN)/tests/mpi/mpi_test > $(SAN)/tests/mpi/mpi_test.log 2>&1; rc=$$?; \
	  sed 's/^/[sanitizers] /' $(SAN)/tests/mpi/mpi_test.log; [ $$rc -eq 0 ] || { echo "[mpi sanitizers] np=$$np FAILED"; exit 1; }; \
	done
	@for np in 2 3; do \
	  $(MPI_ENV) OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo timeout 600 $(MPIRUN) --quiet -np $$np \
	    $(REL)/tests/mpi/mpi_test > $(REL)/tests/mpi/mpi_test_tcp.log 2>&1; rc=$$?; \
	  sed 's/^/[tcp loopback] /' $(REL)/tests/mpi/mpi_test_tcp.log; [ $$rc -eq 0 ] || { echo "[mpi tcp] np=$$np FAILED"; exit 1; }; \
	done
	@$(MPI_ENV) MPIRUN="$(MPIRUN)" MPI_NP="$(MPI_NP)" sh tests/mpi/cli_mpi.sh $(REL)/spt $(REL)/spt-mpi
	@for np in $(MPI_NP_MANY); do \
	  $(MPI_ENV) timeout 900 $(MPIRUN) --quiet -np $$np $(REL)/tests/mpi/mpi_test --small || { echo "[mpi] np=$$np FAILED"; exit 1; }; \
	done
	@$(MPI_ENV) MPIRUN="$(MPIRUN)" MPI_NP="$(MPI_NP)" MPI_NP_MANY="$(MPI_NP_MANY)" PYTHON="$(PYTHON)" \
	  sh tests/mpi/python_mpi.sh $(REL)/libspt_mpi.so
	@$(MPI_ENV) MPIRUN="$(MPIRUN)" sh tests/mpi/cli_mpi_ranks.sh $(REL)/spt-mpi
# build/spt-mpi: the spt command whose reorder, concat, reduce, matmul and sparsify run distributed under
# mpirun (cli/mpi_main.c): every cli/*.c compiled again with mpicc -DSPT_WITH_MPI, cli/main.c with its
# main renamed spt_cli_serial_main. tests/mpi/cli_mpi.sh compares its output files with build/spt's.
MPI_CLI_OBJ := $(CLI_SRC:%.c=$(REL)/mpi/cliobj/%.o)
$(REL)/mpi/cliobj/%.o: %.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(CFLAGS_REL) -DSPT_WITH_MPI $(if $(filter cli/main.c,$<),-Dmain=spt_cli_serial_main -Wno-missing-prototypes,) $(DEPFLAGS) -c $< -o $@.$$$$.tmp && mv -f $@.$$$$.tmp $@
$(REL)/spt-mpi: $(MPI_CLI_OBJ) $(REL)/libspt_mpi.a $(REL)/libspt.a
	$(MPICC) $(OMPFLAG) -o $@.$$$$.tmp $^ $(LDLIBS_LIB) $(PKG_LIBS) && mv -f $@.$$$$.tmp $@
# build/libspt_mpi.so: the whole library and the distributed layer in one shared object, for Python's
# spt.mpi (python/spt/_lib.py loads it instead of libspt.so under mpirun, or through SPT_LIB).
MPI_OBJ_REL := $(MPI_SRC:%.c=$(REL)/mpi/obj/%.o)
$(REL)/libspt_mpi.so: $(LIB_OBJ_REL) $(MPI_OBJ_REL) src/libspt.map
	$(MPICC) -shared $(OMPFLAG) -Wl,-soname,libspt_mpi.so -Wl,--version-script=src/libspt.map -Wl,-z,defs \
	  -o $@.$$$$.tmp $(LIB_OBJ_REL) $(MPI_OBJ_REL) $(LDLIBS_LIB) $(PKG_LIBS) && mv -f $@.$$$$.tmp $@
test-mpi-cli: $(REL)/spt $(REL)/spt-mpi
	@$(MPI_ENV) MPIRUN="$(MPIRUN)" MPI_NP="$(MPI_NP)" sh tests/mpi/cli_mpi.sh $(REL)/spt $(REL)/spt-mpi
mpi-bench: $(REL)/tests/mpi/mpi_bench
	@for np in 1 2 4; do $(MPI_ENV) $(MPIRUN) --quiet -np $$np $(REL)/tests/mpi/mpi_bench; done
ifeq ($(MPI),1)
all: $(REL)/libspt_mpi.a $(REL)/spt-mpi $(REL)/libspt_mpi.so
endif
# make bench-mpi: bench/bench_mpi.c at P = 1, 2, 4 (the serial library in the P = 1 run) and the
# latency/bandwidth of shared memory and TCP loopback at np 2; the table in bench/results/mpi/latest.md
# (raw rows in build/bench-mpi/raw.tsv). BENCH_MPI_N / BENCH_MPI_REPS / BENCH_MPI_OUT (the table's file). Binding: np 1 (which also times the
# serial library at 1 and 2 threads) --bind-to none, so the serial 2-thread rows get both cores (Open MPI
# would bind the one process to one core); np 2 --bind-to core (one core per rank); np 4 (oversubscribed)
# --bind-to none. Each run records the CPUs its ranks may use, printed in the header of latest.md.
BENCH_MPI_N    ?= 10000000
BENCH_MPI_REPS ?= 5
BENCH_MPI_OUT  ?= bench/results/mpi/latest.md
$(REL)/bench/bench_mpi: bench/bench_mpi.c $(REL)/libspt_mpi.a $(REL)/libspt.a $(HDRS) $(MPI_HDRS)
	@mkdir -p $(@D)
	$(MPICC) $(CPPFLAGS) $(CFLAGS_REL) -o $@.$$$$.tmp $< $(REL)/libspt_mpi.a $(REL)/libspt.a $(LDLIBS_LIB) $(PKG_LIBS) && mv -f $@.$$$$.tmp $@
# CombBLAS (Debian's libcombblas-dev, when installed): bench/bench_combblas.cpp times its SpGEMM on the same
# matrices at np 1 and 4 (square process grids only) and checks its result against spt's.
COMBBLAS_H := $(wildcard /usr/include/CombBLAS/CombBLAS.h)
MPICXX ?= mpicxx
$(REL)/bench/bench_combblas: bench/bench_combblas.cpp $(REL)/libspt_mpi.a $(REL)/libspt.a $(HDRS) $(MPI_HDRS)
	@mkdir -p $(@D)
	$(MPICXX) -O2 -std=c++14 -Iinclude $(OMPFLAG) -o $@.$$$$.tmp $< -lCombBLAS $(REL)/libspt_mpi.a $(REL)/libspt.a $(LDLIBS_LIB) $(PKG_LIBS) && mv -f $@.$$$$.tmp $@
bench-mpi: $(REL)/bench/bench_mpi $(if $(COMBBLAS_H),$(REL)/bench/bench_combblas)
	@mkdir -p $(REL)/bench-mpi bench/results/mpi
	@rm -f $(REL)/bench-mpi/raw.tsv*
	@for np in 1 2 4; do case $$np in 2) bind=core;; *) bind=none;; esac; \
	  $(MPI_ENV) timeout 1800 $(MPIRUN) --quiet --bind-to $$bind -np $$np $(REL)/bench/bench_mpi run $(REL)/bench-mpi/raw.tsv $(BENCH_MPI_N) $(BENCH_MPI_REPS) || exit 1; done
	@if [ -n "$(COMBBLAS_H)" ]; then for np in 1 4; do for kind in random power-law; do \
	  $(MPI_ENV) timeout 1800 $(MPIRUN) --quiet --bind-to none -np $$np $(REL)/bench/bench_combblas $(REL)/bench-mpi/raw.tsv $$kind $(BENCH_MPI_REPS) > $(REL)/bench-mpi/combblas.log 2>&1 || { cat $(REL)/bench-mpi/combblas.log; exit 1; }; \
	done; done; for np in 1 2 4; do case $$np in 2) bind=core;; *) bind=none;; esac; \
	  $(MPI_ENV) timeout 1800 $(MPIRUN) --quiet --bind-to $$bind -np $$np $(REL)/bench/bench_combblas $(REL)/bench-mpi/raw.tsv sort $(BENCH_MPI_N) $(BENCH_MPI_REPS) > $(REL)/bench-mpi/combblas.log 2>&1 || { cat $(REL)/bench-mpi/combblas.log; exit 1; }; \
	done; fi
	@$(MPI_ENV) timeout 600 $(MPIRUN) --quiet -np 2 $(REL)/bench/bench_mpi net $(REL)/bench-mpi/raw.tsv "shared memory (vader)"
	@$(MPI_ENV) OMPI_MCA_btl=self,tcp OMPI_MCA_btl_tcp_if_include=lo timeout 600 $(MPIRUN) --quiet -np 2 $(REL)/bench/bench_mpi net $(REL)/bench-mpi/raw.tsv "TCP loopback"
	@$(REL)/bench/bench_mpi report $(REL)/bench-mpi/raw.tsv $(BENCH_MPI_OUT)
	@$(MAKE) --no-print-directory $(REL)/libspt_mpi.so
	@if $(PYTHON) -c "import mpi4py" 2>/dev/null; then \
	  printf '\n## The Python layer (spt.mpi): cost per call over the C call\n\n%s\n\n%s\n%s\n' \
	    "bench/bench_mpi_py.py: 2000 calls of spt.mpi.reorder_inplace on a sorted one-entry-per-rank DTensor against spt_dtensor_reorder through ctypes without the checks, median of 7 alternating blocks, slowest rank; load $$(cut -d' ' -f1 /proc/loadavg). Target: under 50 us." \
	    "| P | C call (us) | spt.mpi call (us) | overhead (us) |" "| --- | --- | --- | --- |" >> $(BENCH_MPI_OUT); \
	  for np in 1 2; do case $$np in 2) bind=core;; *) bind=none;; esac; \
	    SPT_LIB=$(CURDIR)/$(REL)/libspt_mpi.so PYTHONPATH=$(CURDIR)/python $(MPI_ENV) timeout 300 $(MPIRUN) --quiet --bind-to $$bind \
	      -x SPT_LIB -x PYTHONPATH -np $$np $(PYTHON) bench/bench_mpi_py.py >> $(BENCH_MPI_OUT) || exit 1; done; \
	else echo "bench-mpi: $(PYTHON) has no mpi4py: the Python layer's overhead is not measured"; fi
	@cat $(BENCH_MPI_OUT)
.PHONY: test-mpi test-mpi-cli mpi-bench bench-mpi
# ==== end MPI block ====

clean:
	rm -rf build

# ==== test-tsan ====
# make test-tsan: tests/core/test_shared_reads.c (4 threads, read-only ops on shared tensors) built with
# ThreadSanitizer against a TSan build of the library without OpenMP (TSan cannot see libgomp's sync).
TSAN = build/tsan
CFLAGS_TSAN = $(CSTD) $(WARN) -O1 -g -fsanitize=thread
$(TSAN)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_TSAN) $(DEPFLAGS) -c $< -o $@
$(TSAN)/libspt.a: $(LIB_SRC:%.c=$(TSAN)/obj/%.o)
	@rm -f $@; ar rcs $@ $^
$(TSAN)/test_shared_reads: tests/core/test_shared_reads.c $(TEST_SUP) $(TSAN)/libspt.a $(HDRS) $(TEST_HDRS)
	$(CC) $(CPPFLAGS) -Itests/support $(CFLAGS_TSAN) -o $@ $< $(TEST_SUP) $(TSAN)/libspt.a $(TEST_LIBS) $(LDLIBS_LIB) $(PKG_LIBS)
$(TSAN)/test_threads_race: tests/core/test_threads_race.c $(TEST_SUP) $(TSAN)/libspt.a $(HDRS) $(TEST_HDRS)
	$(CC) $(CPPFLAGS) -Itests/support $(CFLAGS_TSAN) -o $@ $< $(TEST_SUP) $(TSAN)/libspt.a $(TEST_LIBS) $(LDLIBS_LIB) $(PKG_LIBS)
$(TSAN)/test_block_cache: tests/core/test_block_cache.c $(TEST_SUP) $(TSAN)/libspt.a $(HDRS) $(TEST_HDRS)
	$(CC) $(CPPFLAGS) -Itests/support $(CFLAGS_TSAN) -o $@ $< $(TEST_SUP) $(TSAN)/libspt.a $(TEST_LIBS) $(LDLIBS_LIB) $(PKG_LIBS)
test-tsan: $(TSAN)/test_shared_reads $(TSAN)/test_threads_race $(TSAN)/test_block_cache
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 $(TSAN)/test_shared_reads
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 $(TSAN)/test_threads_race
	TSAN_OPTIONS=halt_on_error=1:exitcode=66 $(TSAN)/test_block_cache
.PHONY: test-tsan
# ==== end test-tsan block ====

# ==== bench (bench/) ====
# make bench: spt (bench/bench_core.c, 1 thread and all cores, and its floors) against torch, pydata/sparse
# and scipy from Debian, TensorFlow 2.x, torch 2.x and pydata/sparse 0.19 from PyPI (build/bench-venv) and
# SuiteSparse:GraphBLAS (bench/bench_graphblas.c), alternating, each in its own process; writes
# bench/results/latest.{json,md,png}. bench/install-peers.sh installs the peers (BENCH_PYPI=0: Debian only).
# QUICK=1: nnz 1e6 only. BENCH_ARGS passes more options to bench/run.py (e.g. --only reorder).
BENCH_FEATURES = $(shell sh bench/features.sh)
$(REL)/bench/bench_core: bench/bench_core.c bench/bench_gen.h bench/features.sh $(REL)/libspt.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_REL) $(BENCH_FEATURES) -o $@ $< $(REL)/libspt.a $(LDLIBS_LIB) $(PKG_LIBS)
$(REL)/bench/bench_rowptr: bench/bench_rowptr.c bench/bench_gen.h $(REL)/libspt.a $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS_REL) -o $@ $< $(REL)/libspt.a $(LDLIBS_LIB) $(PKG_LIBS)
$(REL)/bench/bench_graphblas: bench/bench_graphblas.c bench/bench_gen.h
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O2 -g -o $@ $< -lgraphblas
# bench_graphblas only where Debian's libgraphblas-dev is installed (install-peers.sh installs it)
bench-programs: $(REL)/bench/bench_core $(REL)/bench/bench_rowptr $(REL)/libspt.so
	@if [ -f /usr/include/GraphBLAS.h ]; then $(MAKE) --no-print-directory $(REL)/bench/bench_graphblas; \
	else echo "bench: no GraphBLAS.h (libgraphblas-dev): the GraphBLAS peer is reported unavailable"; fi
bench:
	@BENCH_TF_VENV=$(BENCH_TF_VENV) sh bench/install-peers.sh build/bench-venv
	@$(MAKE) --no-print-directory bench-programs
	$(PYTHON) bench/run.py --venv build/bench-venv $(if $(BENCH_TF_VENV),--tf-venv $(BENCH_TF_VENV),) $(if $(filter 1,$(QUICK)),--quick,) $(BENCH_ARGS)
	@$(MAKE) --no-print-directory bench-curves CURVES_SIZES=$(if $(filter 1,$(QUICK)),1e5$(COMMA)1e6,$(BENCH_CURVES_SIZES))
	@$(MAKE) --no-print-directory bench-readers
# make bench-curves: bench/curves.py, the cost curves: every op, spt and each peer, at CURVES_SIZES entries
# (default 1e5-1e8), each (op, peer, size) in its own process: time, first call, worst repetition, minor
# faults, peak RSS over the process's baseline; a point whose estimated memory or time is over budget is
# skipped with the reason. Writes bench/results/curves/ (curves.md, curves.json, one PNG per op). make bench
# runs it at BENCH_CURVES_SIZES (default 1e5-1e7; BENCH_CURVES_SIZES=1e5,1e6,1e7,1e8 adds the 1e8 points).
# BENCH_TF_VENV=DIR: TensorFlow from that venv (e.g. build/tf-venv) instead of installing it into the bench venv.
COMMA := ,
CURVES_SIZES ?= 1e5,1e6,1e7,1e8
BENCH_CURVES_SIZES ?= 1e5,1e6,1e7
bench-curves:
	@BENCH_TF_VENV=$(BENCH_TF_VENV) sh bench/install-peers.sh build/bench-venv
	@$(MAKE) --no-print-directory bench-programs
	$(if $(wildcard build/bench-venv/bin/python),build/bench-venv/bin/python,$(PYTHON)) bench/curves.py --sizes $(CURVES_SIZES) \
	  --venv build/bench-venv $(if $(BENCH_TF_VENV),--tf-venv $(BENCH_TF_VENV),) $(CURVES_ARGS)
# make bench-readers: bench/readers.py (.mtx/.tns/.npz/gzip readers and writers against fast_matrix_market,
# pyarrow's CSV reader, pydata/sparse and zcat; spt info against a plain read), peers from PyPI in
# build/io-bench-venv (made here when missing; a peer that cannot be installed is reported unavailable).
bench-readers: $(REL)/libspt.so $(REL)/spt
	@[ -x build/io-bench-venv/bin/python ] || { $(PYTHON) -m venv build/io-bench-venv && \
	  build/io-bench-venv/bin/pip install -q fast_matrix_market pyarrow sparse numpy scipy binsparse; } || true
	$(PYTHON) bench/readers.py --venv build/io-bench-venv $(if $(filter 1,$(QUICK)),--nnz 1000000,) \
	  --out bench/results/$(if $(filter 1,$(QUICK)),trial/,)readers
.PHONY: bench-programs bench-readers bench-curves
# ==== end bench block ====

# ==== install, shared library ABI, pkg-config, doc, walkthrough ====
# The version is defined once, in include/spt.h; the SONAME is libspt.so.MAJOR and src/libspt.map
# exports only the public spt_* API. make install / make uninstall write and remove only under
# $(DESTDIR)$(PREFIX): lib/libspt.a, lib/libspt.so.X.Y.Z (+ libspt.so.X, libspt.so links), include/,
# bin/spt, lib/pkgconfig/spt.pc, share/spt/data, share/doc/spt (and share/man/man3/spt.3 after make doc),
# with MPI=1 lib/libspt_mpi.a, lib/libspt_mpi.so (linked into the Python package for spt.mpi), include/spt_mpi.h
# and bin/spt-mpi, and the Python package in
# $(PREFIX)/lib/pythonX.Y/site-packages/spt (PYTHON_INSTALL=0: not at all).
SPT_MAJOR   := $(shell sed -n 's/^\#define SPT_VERSION_MAJOR  *\([0-9]*\).*/\1/p' include/spt.h)
SPT_MINOR   := $(shell sed -n 's/^\#define SPT_VERSION_MINOR  *\([0-9]*\).*/\1/p' include/spt.h)
SPT_PATCH   := $(shell sed -n 's/^\#define SPT_VERSION_PATCH  *\([0-9]*\).*/\1/p' include/spt.h)
SPT_VERSION := $(SPT_MAJOR).$(SPT_MINOR).$(SPT_PATCH)
SO_LDFLAGS   = -Wl,-soname,libspt.so.$(SPT_MAJOR) -Wl,--version-script=src/libspt.map -Wl,-z,defs
PYTHON_INSTALL ?= 1
LIBDIR       = $(PREFIX)/lib
INCDIR       = $(PREFIX)/include
BINDIR       = $(PREFIX)/bin
DATADIR      = $(PREFIX)/share/spt
DOCDIR       = $(PREFIX)/share/doc/spt
MAN3DIR      = $(PREFIX)/share/man/man3
PCDIR        = $(LIBDIR)/pkgconfig
PYVER        = $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYSITE       = $(LIBDIR)/python$(PYVER)/site-packages
PUB_HDRS     = include/spt.h include/spt_dtypes.def include/spt_status.def
DATA_FILES  := $(sort $(wildcard data/*))
D            = $(DESTDIR)

# spt.pc for $(PREFIX). Libs.private: what a program linking libspt.a needs besides it. libpng and the
# others are named as libraries rather than Requires.private, so that shared use needs no -dev package of them.
$(REL)/spt.pc: include/spt.h Makefile FORCE
	@mkdir -p $(dir $@)
	@{ echo 'prefix=$(PREFIX)'; echo 'exec_prefix=$${prefix}'; echo 'libdir=$${exec_prefix}/lib'; \
	  echo 'includedir=$${prefix}/include'; echo 'datadir=$${prefix}/share/spt/data'; echo; \
	  echo 'Name: spt'; \
	  echo "Description: N-dimensional sparse tensors with TensorFlow's SparseTensor semantics"; \
	  echo 'Version: $(SPT_VERSION)'; \
	  echo 'Cflags: -I$${includedir}'; \
	  echo 'Libs: -L$${libdir} -lspt'; \
	  echo 'Libs.private: $(strip $(PKG_LIBS) $(LDLIBS_LIB) $(OMPFLAG))'; } > $@.tmp && mv -f $@.tmp $@

install: all $(REL)/spt.pc
	install -d $(D)$(LIBDIR) $(D)$(INCDIR) $(D)$(BINDIR) $(D)$(PCDIR) $(D)$(DATADIR)/data $(D)$(DOCDIR)
	install -m 644 $(REL)/libspt.a $(D)$(LIBDIR)/libspt.a
	install -m 755 $(REL)/libspt.so $(D)$(LIBDIR)/libspt.so.$(SPT_VERSION)
	ln -sf libspt.so.$(SPT_VERSION) $(D)$(LIBDIR)/libspt.so.$(SPT_MAJOR)
	ln -sf libspt.so.$(SPT_MAJOR) $(D)$(LIBDIR)/libspt.so
	install -m 644 $(PUB_HDRS) $(D)$(INCDIR)/
	install -m 755 $(REL)/spt $(D)$(BINDIR)/spt
	install -m 644 $(REL)/spt.pc $(D)$(PCDIR)/spt.pc
	install -m 644 $(DATA_FILES) $(D)$(DATADIR)/data/
	install -m 644 README.md LICENSE CHANGELOG.md $(D)$(DOCDIR)/
	@if [ "$(MPI)" = 1 ]; then \
	  echo "install the MPI layer: libspt_mpi.a, libspt_mpi.so, spt_mpi.h, spt-mpi"; \
	  install -m 644 $(REL)/libspt_mpi.a $(D)$(LIBDIR)/libspt_mpi.a && \
	  install -m 755 $(REL)/libspt_mpi.so $(D)$(LIBDIR)/libspt_mpi.so && \
	  install -m 644 include/spt_mpi.h $(D)$(INCDIR)/spt_mpi.h && \
	  install -m 755 $(REL)/spt-mpi $(D)$(BINDIR)/spt-mpi; fi
	@if [ -f $(REL)/doc/html/index.html ]; then \
	  echo "install the documentation of make doc"; \
	  install -d $(D)$(DOCDIR)/html $(D)$(DOCDIR)/python $(D)$(MAN3DIR) && \
	  install -m 644 $(REL)/doc/html/* $(D)$(DOCDIR)/html/ && \
	  install -m 644 $(REL)/doc/python/* $(D)$(DOCDIR)/python/ && \
	  install -m 644 $(REL)/doc/man/man3/spt.3 $(D)$(MAN3DIR)/spt.3; fi
	@if [ "$(PYTHON_INSTALL)" = 1 ] && [ -n "$(PYVER)" ]; then \
	  echo "install the Python package in $(D)$(PYSITE)/spt"; \
	  install -d $(D)$(PYSITE)/spt $(D)$(PYSITE)/spt/_registry && \
	  install -m 644 $$(find python/spt -maxdepth 1 -type f -name '*.py') $(D)$(PYSITE)/spt/ && \
	  install -m 644 python/spt/_registry/*.py $(D)$(PYSITE)/spt/_registry/ && \
	  ln -sf ../../../libspt.so.$(SPT_MAJOR) $(D)$(PYSITE)/spt/libspt.so && \
	  { [ "$(MPI)" != 1 ] || ln -sf ../../../libspt_mpi.so $(D)$(PYSITE)/spt/libspt_mpi.so; } && \
	  echo "  use it with: PYTHONPATH=$(PYSITE) $(PYTHON)"; \
	else echo "the Python package is not installed (PYTHON_INSTALL=$(PYTHON_INSTALL)); see python/README.md"; fi

# Removes what make install wrote (with the same PREFIX and DESTDIR), then the directories it leaves empty.
uninstall:
	rm -f $(D)$(LIBDIR)/libspt.a $(D)$(LIBDIR)/libspt.so $(D)$(LIBDIR)/libspt.so.$(SPT_MAJOR) \
	      $(D)$(LIBDIR)/libspt.so.$(SPT_VERSION) $(D)$(BINDIR)/spt $(D)$(PCDIR)/spt.pc $(D)$(MAN3DIR)/spt.3 \
	      $(PUB_HDRS:include/%=$(D)$(INCDIR)/%) \
	      $(D)$(LIBDIR)/libspt_mpi.a $(D)$(LIBDIR)/libspt_mpi.so $(D)$(INCDIR)/spt_mpi.h $(D)$(BINDIR)/spt-mpi
	rm -rf $(D)$(DATADIR) $(D)$(DOCDIR)
	@if [ -n "$(PYVER)" ]; then rm -rf $(D)$(PYSITE)/spt; fi
	@for d in $(PCDIR) $(if $(PYVER),$(PYSITE) $(LIBDIR)/python$(PYVER)) $(LIBDIR) $(INCDIR) $(BINDIR) \
	          $(MAN3DIR) $(PREFIX)/share/man $(PREFIX)/share/doc $(PREFIX)/share; do \
	  [ -d "$(D)$$d" ] && rmdir "$(D)$$d" 2>/dev/null; true; done

# make test-install: tests/install/run.sh (install into a temporary PREFIX + DESTDIR, pkg-config builds,
# SONAME, exported symbols, uninstall, pip install ./python into a fresh venv).
test-install: all
	@PYTHON=$(PYTHON) sh tests/install/run.sh

# make readme-ops: README.md's list of ops, generated from src/ops/ops.def (tools/oplist.py);
# python/tests/test_oplist.py (in make test) fails when it is stale.
readme-ops:
	$(PYTHON) tools/oplist.py --readme README.md
.PHONY: readme-ops

# make doc: build/doc/html/index.html and build/doc/man/man3/spt.3 from include/spt.h
# (tools/gendoc.py), build/doc/python/*.html from the Python docstrings (pydoc).
# (spt.mpi is left out: it needs mpi4py and libspt_mpi.so, and importing it initialises MPI)
doc: $(REL)/libspt.so
	@mkdir -p $(REL)/doc/html $(REL)/doc/man/man3 $(REL)/doc/python
	$(PYTHON) tools/gendoc.py include/spt.h $(REL)/doc/html/index.html $(REL)/doc/man/man3/spt.3
	@cd $(REL)/doc/python && rm -f *.html && \
	  PYTHONPATH=$(CURDIR)/python SPT_LIB=$(CURDIR)/$(REL)/libspt.so $(PYTHON) -m pydoc -w \
	    spt $$(cd $(CURDIR)/python && ls spt/*.py | sed -n 's|^spt/\(_*[a-z][a-z_]*\)\.py$$|spt.\1|p' | grep -v '__init__' | \
	      grep -vx 'spt.mpi') >/dev/null # spt.mpi imports only with libspt_mpi.so (make MPI=1)
	@echo "make doc: $(REL)/doc/html/index.html, $(REL)/doc/man/man3/spt.3 (man -l), $(REL)/doc/python/spt.html"

# the C part of make run, linked with the static archive
$(REL)/examples/walkthrough: examples/walkthrough.c $(REL)/libspt.a include/spt.h
	@mkdir -p $(dir $@)
	$(CC) -Iinclude $(CFLAGS_REL) -o $@ $< $(REL)/libspt.a $(LDLIBS_LIB) $(PKG_LIBS)

.PHONY: uninstall test-install doc FORCE
FORCE:
# ==== end install block ====

# ==== files of other tools (tests/io) ====
# make io-test-data: write the committed test files of tests/io/data that other tools make (binsparse
# archives by the binsparse package, Matrix Market files by fast_matrix_market), in the io-bench venv
# (build/io-bench-venv, made here when missing). Run by hand when the generators change, never by make test.
# make test-io-peers (part of make test): spt's binsparse and .mtx files read back by those packages, in
# the same venv; skipped with a note when it does not exist.
IO_VENV ?= build/io-bench-venv
io-venv:
	@[ -x $(IO_VENV)/bin/python ] || { $(PYTHON) -m venv $(IO_VENV) && \
	  $(IO_VENV)/bin/pip install -q fast_matrix_market pyarrow sparse numpy scipy binsparse; }
io-test-data: io-venv
	$(IO_VENV)/bin/python tests/io/gen_binsparse.py
	@if [ -f tests/io/gen_fmm.py ]; then $(IO_VENV)/bin/python tests/io/gen_fmm.py; fi
test-io-peers: all
	@if [ -x $(IO_VENV)/bin/python ] && $(IO_VENV)/bin/python -c 'import binsparse' 2>/dev/null; then \
	  PYTHONPATH=python SPT_LIB=$(REL)/libspt.so OMP_NUM_THREADS=2 $(IO_VENV)/bin/python tests/io/peers.py; \
	else echo "test-io-peers: no $(IO_VENV) with binsparse (make io-venv), skipped"; fi
.PHONY: io-venv io-test-data test-io-peers
# ==== end files of other tools block ====

# ==== TensorFlow differential test (tests/tf/) ====
# make test-tf: spt's Python package against TensorFlow itself (tests/tf/harness.py: random inputs per op,
# the rules where spt is stricter, TF's advisories). TensorFlow comes from PyPI into build/tf-venv (built
# once by tests/tf/setup-venv.sh; a test dependency only). SPT_TF_CASES=N SPT_TF_SEED=S for long runs.
TF_VENV ?= build/tf-venv
test-tf: all
	@sh tests/tf/setup-venv.sh $(TF_VENV) $(PYTHON)
	@PYTHONPATH=python SPT_LIB=$(REL)/libspt.so OMP_NUM_THREADS=2 TF_CPP_MIN_LOG_LEVEL=2 \
	  $(TF_VENV)/bin/python tests/tf/harness.py
	@PYTHONPATH=python SPT_LIB=$(REL)/libspt.so OMP_NUM_THREADS=2 TF_CPP_MIN_LOG_LEVEL=2 \
	  $(TF_VENV)/bin/python tests/tf/tfbytes.py
.PHONY: test-tf
# ==== end TensorFlow block ====

# ==== segment_sum, bincount, embeddings against TensorFlow (bench/bench_tfsparse.py) ====
# make bench-tfsparse: segment_sum, bincount and embedding_lookup_sparse, spt and TensorFlow in one process
# (TensorFlow from the venv of make test-tf); writes bench/results/tfsparse/latest.md. Then TFRecord reading
# and tf.train.Example parsing (bench/bench_tfbytes.py: a 1 GB file written under build/bench_tfbytes and
# deleted after; BENCH_TFBYTES_ARGS="--file-mb 256" for a smaller one) into bench/results/tfbytes/latest.md.
bench-tfsparse: all
	@sh tests/tf/setup-venv.sh $(TF_VENV) $(PYTHON)
	@PYTHONPATH=python SPT_LIB=$(REL)/libspt.so TF_CPP_MIN_LOG_LEVEL=2 $(TF_VENV)/bin/python bench/bench_tfsparse.py $(BENCH_ARGS)
	@PYTHONPATH=python SPT_LIB=$(REL)/libspt.so TF_CPP_MIN_LOG_LEVEL=2 $(TF_VENV)/bin/python bench/bench_tfbytes.py $(BENCH_TFBYTES_ARGS)
.PHONY: bench-tfsparse
# ==== end tf.sparse bench block ====

# The header dependencies of every object built so far (see DEPFLAGS); an object built without its .d
# (by an older Makefile) is rebuilt once.
BUILT_OBJS := $(shell find build -name '*.o' 2>/dev/null)
-include $(BUILT_OBJS:.o=.d)
$(foreach o,$(BUILT_OBJS),$(if $(wildcard $(o:.o=.d)),,$(eval $(o): FORCE)))
