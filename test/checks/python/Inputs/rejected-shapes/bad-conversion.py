# An f-string conversion mistyped (`!d` for a format spec): CPython knows
# only !s, !r and !a.
def describe(layer_id):
    return f"layer {layer_id!d}"
