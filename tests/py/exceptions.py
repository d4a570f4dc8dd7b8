# try/except/else/finally, raise, custom exceptions, bare raise, with statements
def risky(n):
    if n == 0:
        raise ValueError("zero")
    if n == 1:
        return 1 / 0
    if n == 2:
        return [][5]
    if n == 3:
        return {}["key"]
    return n
for n in range(5):
    try:
        r = risky(n)
    except ValueError as e:
        print(n, "ValueError", e)
    except (ZeroDivisionError, IndexError) as e:
        print(n, type(e).__name__, e)
    except LookupError as e:
        print(n, "LookupError", repr(e), e.args)
    else:
        print(n, "ok", r)
    finally:
        print(n, "finally")
def early_return():
    try:
        return "from try"
    finally:
        print("finally runs before return")
print(early_return())
def finally_overrides():
    try:
        return 1
    finally:
        return 2
print(finally_overrides())
def loop_with_finally():
    out = []
    for i in range(4):
        try:
            if i == 1:
                continue
            if i == 3:
                break
            out.append(i)
        finally:
            out.append("f%d" % i)
    return out
print(loop_with_finally())
class AppError(Exception):
    pass
class ConfigError(AppError):
    def __init__(self, key, detail="missing"):
        super().__init__(f"{key}: {detail}")
        self.key = key
try:
    raise ConfigError("lr")
except AppError as e:
    print(type(e).__name__, e, e.key, e.args, isinstance(e, Exception))
try:
    try:
        raise KeyError("inner")
    except KeyError:
        print("handling, then re-raising")
        raise
except KeyError as e:
    print("outer caught", e)
try:
    try:
        1 / 0
    except ZeroDivisionError as e:
        raise RuntimeError("wrapped") from e
except RuntimeError as e:
    print(e)
def nested_handlers():
    try:
        try:
            raise TypeError("t")
        except ValueError:
            return "wrong"
    except TypeError as e:
        return "right " + str(e)
print(nested_handlers())
try:
    raise ValueError
except ValueError as e:
    print(repr(e), repr(str(e)))
e = Exception("a", 2)
print(e, repr(e), e.args, str(Exception()), repr(KeyError("k")), str(KeyError("k")))
try:
    assert 2 + 2 == 5, "math"
except AssertionError as e:
    print("assert:", e)
try:
    assert False
except AssertionError as e:
    print("bare assert", repr(e))
class Resource:
    def __init__(self, name, suppress=False):
        self.name = name
        self.suppress = suppress
    def __enter__(self):
        print("open", self.name)
        return self.name.upper()
    def __exit__(self, exc_type, exc, tb):
        print("close", self.name, exc_type.__name__ if exc_type else None, exc)
        return self.suppress
with Resource("a") as r:
    print("using", r)
with Resource("b", suppress=True):
    raise ValueError("swallowed")
print("after suppressed")
try:
    with Resource("c"):
        raise KeyError("propagates")
except KeyError as e:
    print("caught", e)
with Resource("x") as x, Resource("y") as y:
    print("both", x, y)
def with_return():
    with Resource("ret"):
        return "returned"
print(with_return())
errors = []
for exc in (ValueError, TypeError, KeyError, IndexError, ZeroDivisionError, AttributeError, NameError, RuntimeError, StopIteration, NotImplementedError, OverflowError, RecursionError, ImportError, ModuleNotFoundError, UnboundLocalError, AssertionError):
    try:
        raise exc("msg")
    except Exception as e:
        errors.append((type(e).__name__, [c.__name__ for c in type(e).__mro__[1:-1]]))
for item in errors:
    print(item)
try:
    int("x1")
except ValueError as e:
    print(e)
try:
    float("abc")
except ValueError as e:
    print(e)
try:
    [1, 2, 3].index(9)
except ValueError as e:
    print(e)
try:
    None.attr
except AttributeError as e:
    print(e)
try:
    (1, 2)[0] = 5
except TypeError as e:
    print(e)
try:
    "x" + 1
except TypeError as e:
    print(e)
try:
    1 + "x"
except TypeError as e:
    print(e)
try:
    [1] * 2.0
except TypeError as e:
    print(e)
try:
    len(5)
except TypeError as e:
    print(e)
try:
    five = 5
    five()
except TypeError as e:
    print(e)
try:
    1 < "a"
except TypeError as e:
    print(e)
try:
    {[1]: 2}
except TypeError as e:
    print(e)
try:
    def f(a, b): pass
    f(1, 2, 3)
except TypeError as e:
    print(e)
try:
    f(1)
except TypeError as e:
    print(e)
try:
    f(1, 2, c=3)
except TypeError as e:
    print(e)
try:
    f(1, a=1)
except TypeError as e:
    print(e)
try:
    a, b = [1, 2, 3]
except ValueError as e:
    print(e)
try:
    a, b, c = "xy"
except ValueError as e:
    print(e)
try:
    for q in 5:
        pass
except TypeError as e:
    print(e)
try:
    import nonexistent_module_xyz
except ImportError as e:
    print(type(e).__name__, e)
def unbound():
    print(later)
    later = 1
try:
    unbound()
except UnboundLocalError as e:
    print(e)
def recurse(n):
    return recurse(n + 1)
try:
    recurse(0)
except RecursionError:
    print("RecursionError caught")
try:
    next(iter([]))
except StopIteration:
    print("StopIteration caught")
try:
    1 % 0
except ZeroDivisionError as e:
    print(e)
try:
    1.0 / 0
except ZeroDivisionError as e:
    print(e)
try:
    2.0 // 0
except ZeroDivisionError as e:
    print(e)
try:
    raise TypeError
except Exception as e:
    print("generic", type(e).__name__)
try:
    raise 42
except TypeError as e:
    print(e)
