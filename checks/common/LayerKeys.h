//===- LayerKeys.h - Which container keys name a layer -------------------===//
//
// Both frontends mark a slot whose key names a layer (`ws[layer_id]`,
// `ws[self.layer_name]`, `m[this->layer_idx]`) as one slot per layer; this
// is the one reading of "names a layer" they share.
//
//===----------------------------------------------------------------------===//
#ifndef TETHER_COMMON_LAYERKEYS_H
#define TETHER_COMMON_LAYERKEYS_H

#include "llvm/ADT/StringRef.h"

namespace tether {

/// Whether an identifier in a key names a layer.
inline bool isLayerName(llvm::StringRef Identifier) {
  return Identifier.contains_insensitive("layer");
}

} // namespace tether

#endif
