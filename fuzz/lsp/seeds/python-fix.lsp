Content-Length: 111

{"jsonrpc":"2.0","method":"initialize","id":1,"params":{"processId":1,"rootUri":"file:///w","capabilities":{}}}Content-Length: 52

{"jsonrpc":"2.0","method":"initialized","params":{}}Content-Length: 313

{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/attn.py","languageId":"python","version":1,"text":"from vllm.utils.torch_utils import weak_ref_tensors\n\n\ndef store_workspace(cache, key, workspace):\n    cache[key] = weak_ref_tensors(weak_ref_tensors(workspace))\n"}}}Content-Length: 296

{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/attn.py","version":2},"contentChanges":[{"text":"from vllm.utils.torch_utils import weak_ref_tensors\n\n\ndef store_workspace(cache, key, workspace):\n    cache[key] = weak_ref_tensors(workspace)\n"}]}}Content-Length: 45

{"jsonrpc":"2.0","method":"shutdown","id":99}Content-Length: 33

{"jsonrpc":"2.0","method":"exit"}