def f():
    return undefined_thing + 1


f()
