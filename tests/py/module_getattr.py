# A module's __getattr__ answers the names its dict lacks (PEP 562), for attribute access,
# from-imports and hasattr; names in the dict never reach it.
import _lazy_mod
from _lazy_mod import lazy_two

print(_lazy_mod.PRESENT, _lazy_mod.lazy_one, lazy_two)
print(_lazy_mod.lazy_one, _lazy_mod.asked)
print(hasattr(_lazy_mod, "lazy_three"), hasattr(_lazy_mod, "missing"))
print(getattr(_lazy_mod, "other", "default"))
try:
    _lazy_mod.nothing
except AttributeError as e:
    print("AttributeError:", e)
try:
    from _lazy_mod import absent_name
except ImportError as e:
    print("ImportError:", type(e).__name__)
print(_lazy_mod.asked)
