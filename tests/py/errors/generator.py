def numbers(n):
    for i in range(n):
        yield i


print(list(numbers(3)))
