# A condition continued over lines, pasted twice while editing: the first
# `if` has no block. CPython reports the line that should have been
# indented, and the header it belongs to.
def sm_control(config):
    comm_sms = 0
    if (
        config.expert_parallel
        and not config.afd
    ):
    if (
        config.expert_parallel
        and not config.afd
    ):
        comm_sms = 8
    return comm_sms
