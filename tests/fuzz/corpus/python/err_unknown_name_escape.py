x = "\N{NOPE}"
