"""The forward context's capture flag (vllm.forward_context)."""


class ForwardContext:
    capturing = False


_context = ForwardContext()


def get_forward_context():
    return _context
