"""Both halves of an LSP session on stdio, shared by the session drivers:
frames written to the server, and a thread that reads the server's
Content-Length frames into an inbox (None when the server closed its
output) and wakes whoever waits on the condition."""
import json
import threading


def frame(data):
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def send(proc, msg):
    msg["jsonrpc"] = "2.0"
    proc.stdin.write(frame(json.dumps(msg).encode()))
    proc.stdin.flush()


def start_reader(proc):
    inbox, cv = [], threading.Condition()

    def reader():
        out = proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    with cv:
                        inbox.append(None)
                        cv.notify_all()
                    return
                line = line.strip()
                if not line:
                    break
                name, _, value = line.decode().partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            body = json.loads(out.read(length))
            with cv:
                inbox.append(body)
                cv.notify_all()

    threading.Thread(target=reader, daemon=True).start()
    return inbox, cv
