# The variant directory (buggy/ or fixed/) contributes compilation/.
from pkgutil import extend_path

__path__ = extend_path(__path__, __name__)
