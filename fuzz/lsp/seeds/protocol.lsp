Content-Length: 111

{"jsonrpc":"2.0","method":"initialize","id":1,"params":{"processId":1,"rootUri":"file:///w","capabilities":{}}}Content-Length: 52

{"jsonrpc":"2.0","method":"initialized","params":{}}Content-Length: 66

{"jsonrpc":"2.0","method":"textDocument/hover","id":2,"params":{}}Content-Length: 9

{not jsonContent-Length: 37

{"jsonrpc":"2.0","method":"shutdown"}Content-Length: 33

{"jsonrpc":"2.0","method":"exit"}