# A parameter list ended with a bare `*` (a typing slip for `*args` or a
# keyword-only parameter deleted): CPython wants a named parameter after it.
def build(vllm_config, use_layerwise: bool, *):
    return vllm_config, use_layerwise
