"""A module with a module-level __getattr__ (PEP 562), imported by module_getattr.py."""
PRESENT = "in the dict"
asked = []


def __getattr__(name):
    if not name.startswith("__"):
        asked.append(name)
    if name.startswith("lazy_"):
        value = name[5:].upper()
        globals()[name] = value
        return value
    raise AttributeError("module %r has no attribute %r" % (__name__, name))
