Content-Length: 111

{"jsonrpc":"2.0","method":"initialize","id":1,"params":{"processId":1,"rootUri":"file:///w","capabilities":{}}}Content-Length: 52

{"jsonrpc":"2.0","method":"initialized","params":{}}Content-Length: 625

{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/buggy.cpp","languageId":"cpp","version":1,"text":"// A translation unit with one finding of each kind the CLI tests count on.\n#include \"torch_npu_stub.h\"\n\nat::Tensor weak_ref_tensor(const at::Tensor &t);\nstatic at::Tensor weakened(const at::Tensor &t) { return weak_ref_tensor(t); }\nat::Tensor twice(const at::Tensor &x) {\n  return weak_ref_tensor(weak_ref_tensor(x));\n}\n\nat::Tensor via_local(const at::Tensor &x) {\n  at::Tensor w = weakened(x); // the first conversion, in a helper\n  return weak_ref_tensor(w);\n}\n"}}}Content-Length: 352

{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/buggy.cpp","version":2},"contentChanges":[{"text":"// No findings: one conversion of each tensor.\n#include \"torch_npu_stub.h\"\n\nat::Tensor weak_ref_tensor(const at::Tensor &t);\n\nat::Tensor once(const at::Tensor &x) { return weak_ref_tensor(x); }\n"}]}}Content-Length: 45

{"jsonrpc":"2.0","method":"shutdown","id":99}Content-Length: 33

{"jsonrpc":"2.0","method":"exit"}