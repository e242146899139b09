# A letter typed after a backslash in a key: CPython decodes `\u` as the
# start of a four-digit escape when it reads the literal.
def cpu_blocks(extra_config):
    return extra_config.get("\um_cpu_blocks")
