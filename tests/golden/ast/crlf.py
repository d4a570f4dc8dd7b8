# A file with Windows line endings.
x = 1
if x:
    y = "a\
b"
    z = """multi
line"""
