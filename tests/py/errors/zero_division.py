def divide(a, b):
    return a / b


def compute(values):
    total = 0
    for v in values:
        total += divide(10, v)
    return total


print(compute([1, 2, 0]))
