// The catalog is extended by clang-tidy check options and by a .tether.yaml
// found upward from the file; a malformed .tether.yaml is reported.
// RUN: rm -rf %t && mkdir -p %t/proj/src && cp %s %t/proj/src/ext.cpp
//
// Without configuration my_alias is an unknown function: no finding.
// RUN: %clang_tidy --checks='-*,tether-double-weak-ref' %t/proj/src/ext.cpp -- -std=c++17 \
// RUN:   | FileCheck %s --check-prefix=NONE --allow-empty
// NONE-NOT: warning:
//
// As a check option (';'-separated list).
// RUN: %clang_tidy --checks='-*,tether-double-weak-ref' \
// RUN:   --config="{CheckOptions: {tether-double-weak-ref.WeakRefFunctions: 'other;ext::my_alias'}}" \
// RUN:   %t/proj/src/ext.cpp -- -std=c++17 | FileCheck %s
//
// From .tether.yaml two levels up, through the plugin and the CLI.
// RUN: printf 'weak_ref_functions: [ext::my_alias]\n' > %t/proj/.tether.yaml
// RUN: %clang_tidy --checks='-*,tether-double-weak-ref' %t/proj/src/ext.cpp -- -std=c++17 | FileCheck %s
// RUN: not %tether check %t/proj/src/ext.cpp -- -std=c++17 | FileCheck %s
//
// inherit: false in a nearer file drops the parent's and the defaults.
// RUN: printf 'inherit: false\n' > %t/proj/src/.tether.yaml
// RUN: %tether check %t/proj/src/ext.cpp -- -std=c++17 | count 0
//
// A malformed file: one line naming file:line:col, exit 2.
// RUN: printf 'weak_ref_functions: [a]\nunknown_field: 1\n' > %t/proj/src/.tether.yaml
// RUN: %expect_exit 2 %tether check %t/proj/src/ext.cpp -- -std=c++17 2> %t/err
// RUN: FileCheck %s --check-prefix=BAD < %t/err
// BAD: tether: error: {{.*}}src{{/|\\}}.tether.yaml:2:1: unknown key 'unknown_field'
// RUN: %clang_tidy --checks='-*,tether-double-weak-ref' %t/proj/src/ext.cpp -- -std=c++17 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TIDYBAD
// TIDYBAD: .tether.yaml:2:1: unknown key 'unknown_field'

namespace ext {
struct Tensor {};
Tensor my_alias(const Tensor &t);
Tensor twice(const Tensor &t) { return my_alias(my_alias(t)); }
// CHECK: ext.cpp:[[@LINE-1]]:40: warning: weak-ref conversion of a value that is already a weak reference [tether-double-weak-ref]
} // namespace ext
