# lit configuration for tether: checks (C++ and Python), CLI, integrations.
import os
import shutil

import lit.formats

# Run as `lit build/test`: the generated lit.site.cfg.py there sets the
# paths below and loads this file.
config.name = "tether"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".cpp", ".py", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py", "unit", "runtime", "tools"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tether_obj_root, "test")

bin_dir = os.path.join(config.tether_obj_root, "bin")
lib_dir = os.path.join(config.tether_obj_root, "lib")
config.environment["PATH"] = os.pathsep.join(
    [bin_dir, config.llvm_bin, config.environment.get("PATH", os.environ["PATH"])])
for var in ("HOME", "TMPDIR", "LANG"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
# tether check keeps a cache (checks/python/ResultCache.h) under
# $XDG_CACHE_HOME/tether: the suite's own, in the build tree, never the
# user's. Every test that runs tether check goes through it, so the whole
# suite doubles as a test that a cache hit prints what an analysis would.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root, "xdg-cache")

plugin = os.path.join(lib_dir, "libTetherTidy.so")
clang_tidy = "clang-tidy-22"
if config.asan_runtime:
    # The sanitizer build: every report is fatal, leaks included. The stock
    # clang-tidy-22 hosting the instrumented plugin preloads the ASan runtime;
    # its own allocations are LLVM's, so leak checking stays with our binaries.
    # allow_user_poisoning=0: LLVM's headers poison BumpPtrAllocator slabs in
    # our instrumented code, while Debian's uninstrumented LLVM/clangd
    # libraries allocate from the same slabs without unpoisoning them, which
    # ASan then reports as use-after-poison inside clangd (a false report of
    # mixing the two, not a bug of either).
    # quarantine_size_mb=16 (ASan's default holds 256 MB of freed memory
    # back): a run over a real package frees far more than that, and
    # faulting in fresh pages for every new allocation made the Python
    # tests 1.5x slower (the vLLM Ascend tree: 6.0 s -> 4.0 s). A freed
    # block still stays poisoned until 16 MB more have been freed, the
    # window the fuzz campaigns use too (docs/robustness.md).
    asan = "halt_on_error=1:allow_user_poisoning=0:quarantine_size_mb=16"
    config.environment["ASAN_OPTIONS"] = "detect_leaks=1:" + asan
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    clang_tidy = "env LD_PRELOAD=%s ASAN_OPTIONS=detect_leaks=0:%s clang-tidy-22" % (
        config.asan_runtime, asan)
    config.available_features.add("sanitizer")
# A time bound for tests that guard against quadratic steps: the sanitizers
# make a run 5 to 8 times slower (the 20,000-entry table of
# statement-size.test: 1.9 s released, 13.5 s under ASan on an idle
# machine), and a bound that holds for the release build made the
# sanitizer build's run flaky under load. The quadratic steps it guards
# against took 35 to 47 s released: far beyond either bound.
time_limit = "120" if config.asan_runtime else "20"
torch_flags = ("-std=c++17 -I/usr/include/torch/csrc/api/include "
               "-I/usr/include/python3.11")
config.substitutions += [
    ("%tether", os.path.join(bin_dir, "tether")),
    ("%time_limit", time_limit),
    ("%clang_tidy", "%s --load=%s" % (clang_tidy, plugin)),
    ("%tidy_plugin", plugin),
    ("%torch_flags", torch_flags),
    ("%resource_dir", config.clang_resource_dir),
    ("%src_root", config.tether_src_root),
    ("%project_version", config.tether_version),
    ("%llvm_version", config.llvm_version),
    ("%python", shutil.which("python3", path="/usr/bin") or "python3"),
    # %expect_exit N CMD...: CMD must exit with exactly N.
    ("%expect_exit", "python3 " + os.path.join(config.tether_src_root,
                                               "test", "tools", "expect_exit.py")),
]
if os.path.exists(os.path.join(bin_dir, "tether-clangd")):
    config.available_features.add("tether-clangd")
if config.jemalloc:
    config.available_features.add("jemalloc")
if shutil.which("pre-commit"):
    config.available_features.add("pre-commit")
