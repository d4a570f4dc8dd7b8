foo(a b)
