//===- Suppression.h - NOLINT / noqa comments in Python sources -----------===//
//
// `# NOLINT`, `# NOLINT(check,...)`, `# NOLINTNEXTLINE(check,...)` as
// clang-tidy reads them, and flake8's `# noqa` / `# noqa: check,...`. Check
// lists may use globs ("tether-*").
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_PYTHON_SUPPRESSION_H
#define TETHER_PYTHON_SUPPRESSION_H

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tether::python {

class Suppressions {
public:
  explicit Suppressions(std::string_view Source);
  /// Is a finding of Check on 1-based Line suppressed?
  bool suppressed(unsigned Line, const std::string &Check) const;

private:
  /// Per line: the check patterns; an empty list means every check.
  std::unordered_map<unsigned, std::vector<std::vector<std::string>>> ByLine;
  void add(unsigned Line, std::vector<std::string> Patterns);
};

} // namespace tether::python

#endif
