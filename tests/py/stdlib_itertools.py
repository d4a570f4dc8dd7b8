# itertools: the building blocks build scripts use
import itertools
from itertools import chain, product, permutations, combinations, count, repeat, islice, zip_longest, accumulate, groupby
print(list(chain([1, 2], (3,), "ab")), list(chain.from_iterable([[1], [2, 3]])), list(chain()))
print(list(product([1, 2], "ab")), list(product(range(2), repeat=3))[:4], list(product()))
print(list(permutations([1, 2, 3])), list(permutations("abc", 2)), list(permutations([1], 2)))
print(list(combinations(range(4), 2)), list(combinations("abc", 0)), list(combinations([1, 2], 3)))
print(list(itertools.combinations_with_replacement("ab", 2)))
c = count(5)
print(next(c), next(c), c, list(islice(count(0, 2), 4)), list(islice(count(1.5, 0.5), 3)))
print(list(repeat("x", 3)), list(islice(repeat(0), 2)), list(zip(range(3), repeat(7))))
print(list(islice("abcdefg", 3)), list(islice("abcdefg", 2, 5)), list(islice("abcdefg", 1, None, 2)), list(islice([], 3)))
print(list(zip_longest("abc", [1])), list(zip_longest([1, 2], [3], fillvalue=0)), list(zip_longest()))
print(list(accumulate([1, 2, 3, 4])), list(accumulate([3, 1, 4], max)), list(accumulate([1, 2], initial=10)), list(accumulate([])))
print([(k, list(g)) for k, g in groupby("aaabbc")], [(k, len(list(g))) for k, g in groupby([1, 3, 2, 4, 5], key=lambda v: v % 2)])
print(list(itertools.starmap(pow, [(2, 3), (3, 2)])), list(itertools.takewhile(lambda v: v < 3, [1, 2, 3, 1])),
      list(itertools.dropwhile(lambda v: v < 3, [1, 2, 3, 1])), list(itertools.filterfalse(None, [0, 1, 2, 0])))
print(list(itertools.compress("abcd", [1, 0, 1, 0])), list(itertools.pairwise([1, 2, 3])), list(islice(itertools.cycle("ab"), 5)))
a, b = itertools.tee([1, 2])
print(list(a), list(b))
for i, (x, y) in enumerate(product([0, 1], ["a"])):
    print(i, x, y)
