Content-Length: 111

{"jsonrpc":"2.0","method":"initialize","id":1,"params":{"processId":1,"rootUri":"file:///w","capabilities":{}}}Content-Length: 52

{"jsonrpc":"2.0","method":"initialized","params":{}}Content-Length: -5

{}Content-Length: 99999999999999999999

Content-Type: application/vscode-jsonrpc

{"id":3}Content-Length: 0

Content-Length: 600

[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]Content-Length: 54

{"jsonrpc":"2.0","id":{"bad":1},"method":"initialize"}Content-Length: 102

{"jsonrpc":"2.0","id":4,"method":"textDocument/didOpen","params":{"textDocument":{"uri":5,"text":[]}}}Content-Length: 2

ÿþContent-Length: 45

{"jsonrpc":"2.0","method":"shutdown","id":99}Content-Length: 33

{"jsonrpc":"2.0","method":"exit"}Content-Length: 100

{"cut off