type X = int
