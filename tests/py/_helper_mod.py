"""A module imported by imports.py (files starting with _ are not tests)."""
CONST = "helper const"
calls = []


def double(x):
    calls.append(x)
    return x * 2


def triple(x):
    return x * 3


class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self):
        return "hi " + self.name


print("helper module loaded as", __name__)
