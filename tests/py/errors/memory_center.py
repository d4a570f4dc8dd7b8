width = 10**12
s = 'x'.center(width)
