"""An Ascend attention backend and ACL graph wrapper (tether example)."""
from .utils import weak_ref_tensors

__all__ = ["weak_ref_tensors"]
