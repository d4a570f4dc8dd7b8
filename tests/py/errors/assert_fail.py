batch = 3
assert batch % 2 == 0, "batch size must be even"
