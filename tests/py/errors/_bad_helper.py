SCALE = 2
table = [1, 2, 3]
value = table[SCALE * 2]
