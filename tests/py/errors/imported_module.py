import _bad_helper

print(_bad_helper.value)
