#!/usr/bin/env python3
"""Generate a C++ translation unit of N functions in the shapes the
capture-lifetime checks reason about, for measuring how their cost grows.

  bench/cxx/gen_tu.py N [--torch] > tu.cpp

The functions come in groups of ten, one group per model "block":
  - a weak-ref helper (inferred: it returns weak_ref_tensor's result) and a
    store helper that weak-refs its parameter into a cache;
  - an attention layer with a workspace cache keyed by the number of tokens
    (find / early return / allocate / launch / store), held by a keep-alive
    list in three groups of four and not held in the fourth (a finding),
    passed to the store helper already weak in one group of six (a double
    conversion);
  - a "keep the larger workspace" layer on a shared slot (replaced during
    capture in every fifth group), a per-layer slot otherwise;
  - a layer taking an optional bias, guarded in six groups of seven;
  - an MLP and a decoder layer calling the attention layers (call chains),
    a loop over layers calling the decoder layer and the previous group's;
  - a capture entry point (NPUGraph capture_begin/capture_end or ACL
    aclmdlRICaptureBegin/End) driving this group's and an earlier group's
    model;
  - a post-capture function weakening a cache of graph params.
So the call graph has cross-group edges, the capture context spreads through
chains of depth 4-6, and every check has work (and findings) in every group.

With --torch the TU includes the real ATen headers (libtorch-dev) instead of
test/checks/cxx/Inputs/torch_npu_stub.h, and declares the NPU API itself.
"""
import argparse
import sys

STUB_PRELUDE = """\
#include "torch_npu_stub.h"
at::Tensor weak_ref_tensor(const at::Tensor &t);
using at_npu::native::npu_paged_attention;
"""

TORCH_PRELUDE = """\
#include <ATen/ATen.h>
#include <optional>
#include <unordered_map>
#include <vector>
namespace c10_npu {
struct NPUGraph { void capture_begin(); void capture_end(); };
}
using aclrtStream = void *;
using aclmdlRI = void *;
enum aclmdlRICaptureMode { ACL_MODEL_RI_CAPTURE_MODE_GLOBAL = 0 };
int aclmdlRICaptureBegin(aclrtStream stream, aclmdlRICaptureMode mode);
int aclmdlRICaptureEnd(aclrtStream stream, aclmdlRI *model);
namespace at_npu::native {
void npu_paged_attention(const at::Tensor &q, const at::Tensor &workspace);
}
at::Tensor weak_ref_tensor(const at::Tensor &t);
using at_npu::native::npu_paged_attention;
"""

GROUP = """\
// ---- group {g} ----
static std::unordered_map<int64_t, at::Tensor> g_attn_ws_{g};
static std::vector<at::Tensor> g_keep_{g};
{fused_decl}
static std::unordered_map<int64_t, at::Tensor> g_params_{g};

at::Tensor weak_{g}(const at::Tensor &t) {{ return weak_ref_tensor(t); }}

void remember_{g}(int64_t n, const at::Tensor &ws) {{
  g_attn_ws_{g}[n] = weak_{g}(ws);
}}

at::Tensor attention_{g}(const at::Tensor &q, int64_t n) {{
  auto it = g_attn_ws_{g}.find(n);
  if (it != g_attn_ws_{g}.end()) {{
    npu_paged_attention(q, it->second);
    return q;
  }}
  at::Tensor ws = at::empty({{n}});
  npu_paged_attention(q, ws);
{keep}  remember_{g}(n, {arg});
  return q;
}}

{fused}
at::Tensor biased_{g}(const at::Tensor &q, std::optional<at::Tensor> bias) {{
{guard}  npu_paged_attention(q, weak_{g}(*bias));
  return q;
}}

at::Tensor mlp_{g}(const at::Tensor &x, int64_t n) {{
  at::Tensor h = x;
  for (int i = 0; i < 2; ++i)
    h = fused_{g}(h, n * (i + 1), i);
  return biased_{g}(h, std::nullopt);
}}

at::Tensor decoder_{g}(const at::Tensor &x, int64_t n) {{
  at::Tensor h = attention_{g}(x, n);
  return mlp_{g}(h, n);
}}

at::Tensor model_{g}(const at::Tensor &x, int64_t n, int layers) {{
  at::Tensor h = x;
  for (int l = 0; l < layers; ++l) {{
    h = decoder_{g}(h, n);
{prev_call}  }}
  return h;
}}

{capture}

void weaken_params_{g}(std::vector<at::Tensor> &out) {{
  for (auto &kv : g_params_{g}) {{
    if (!kv.second.defined())
      continue;
    out.push_back(weak_{g}(kv.second));
  }}
}}
"""

NPU_CAPTURE = """\
at::Tensor capture_{g}(c10_npu::NPUGraph &graph, const at::Tensor &x) {{
  graph.capture_begin();
  at::Tensor h = model_{g}(x, 16, 4);
  h = model_{e}(h, 16, 2);
  graph.capture_end();
  g_keep_{g}.clear();
  return h;
}}"""

ACL_CAPTURE = """\
at::Tensor capture_{g}(aclrtStream stream, const at::Tensor &x) {{
  aclmdlRICaptureBegin(stream, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
  at::Tensor h = model_{g}(x, 16, 4);
  h = model_{e}(h, 16, 2);
  aclmdlRI model = nullptr;
  aclmdlRICaptureEnd(stream, &model);
  g_keep_{g}.clear();
  return h;
}}"""

SHARED_FUSED = """\
at::Tensor fused_{g}(const at::Tensor &q, int64_t need, int layer_id) {{
  if (!g_fia_workspace_{g}.defined() || g_fia_workspace_{g}.numel() < need)
    g_fia_workspace_{g} = at::empty({{need}});
  npu_paged_attention(q, g_fia_workspace_{g});
  return q;
}}
"""

PER_LAYER_FUSED = """\
at::Tensor fused_{g}(const at::Tensor &q, int64_t need, int layer_id) {{
  if (g_fia_workspace_{g}.find(layer_id) == g_fia_workspace_{g}.end())
    g_fia_workspace_{g}[layer_id] = at::empty({{need}});
  npu_paged_attention(q, g_fia_workspace_{g}[layer_id]);
  return q;
}}
"""

FUNCS_PER_GROUP = 10


def group(g):
    prev = g - 1
    earlier = max(0, g - 3)
    capture = (NPU_CAPTURE if g % 2 == 0 else ACL_CAPTURE).format(g=g, e=earlier)
    return GROUP.format(
        g=g,
        fused_decl=(f"static at::Tensor g_fia_workspace_{g};" if g % 5 == 0 else
                    f"static std::unordered_map<int, at::Tensor> g_fia_workspace_{g};"),
        fused=(SHARED_FUSED if g % 5 == 0 else PER_LAYER_FUSED).format(g=g),
        keep="" if g % 4 == 3 else f"  g_keep_{g}.push_back(ws);\n",
        guard="  if (bias)\n  " if g % 7 != 6 else "",
        arg=f"weak_{g}(ws)" if g % 6 == 5 else "ws",
        prev_call=f"    h = decoder_{prev}(h, n);\n" if g > 0 else "",
        capture=capture,
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", type=int, help="number of functions (multiple of 10)")
    ap.add_argument("--torch", action="store_true",
                    help="include the real ATen headers instead of the stub")
    args = ap.parse_args()
    if args.n <= 0 or args.n % FUNCS_PER_GROUP:
        sys.exit(f"gen_tu.py: N must be a positive multiple of {FUNCS_PER_GROUP}")
    out = [f"// Generated by bench/cxx/gen_tu.py {args.n}"
           f"{' --torch' if args.torch else ''}: {args.n} functions.\n",
           TORCH_PRELUDE if args.torch else STUB_PRELUDE]
    for g in range(args.n // FUNCS_PER_GROUP):
        out.append(group(g))
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
