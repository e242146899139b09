# A hard keyword where a name goes: the grammar reads it as a name.
queue = []
queue.append(pass)
