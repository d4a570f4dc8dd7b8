data = [[1, 2], [3]]
for row in data:
    print(row[1])
