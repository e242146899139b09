//===- ModuleFuzzer.cpp - Bytes as one Python module ----------------------===//
#include "ScratchPackage.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  static const tether::fuzz::ScratchDir Dir("module");
  std::string Path = Dir.file("mod.py");
  tether::fuzz::writeFile(
      Path, std::string_view(reinterpret_cast<const char *>(Data), Size));
  tether::fuzz::analyzeFiles({Path});
  return 0;
}
