# An if header left unfinished at the end of its line: CPython ends the
# line there; the grammar's scanner read on into `"call_function":`.
def calls(nodes):
    for node in nodes:
        if node.op ==
                "call_function":
            yield node
