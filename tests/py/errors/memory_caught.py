# a size error is an ordinary exception: it can be caught and names the size
try:
    s = ','.join(['x' * 1000000] * 2000)
except MemoryError as e:
    msg = str(e)
assert msg == 'cannot allocate a str of 2000001999 characters', msg
big = list(range(10**12))
