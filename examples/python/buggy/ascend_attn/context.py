from dataclasses import dataclass
from typing import Optional


@dataclass
class ForwardContext:
    capturing: bool = False
    num_tokens: int = 0


_forward_context: Optional[ForwardContext] = None


def get_forward_context():
    return _forward_context


def set_forward_context(ctx):
    global _forward_context
    _forward_context = ctx
