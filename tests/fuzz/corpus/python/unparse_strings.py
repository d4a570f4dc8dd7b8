# String and bytes literals: repr's quoting and escapes.
a = 'plain'
a = "it's"
a = 'say "hi"'
a = 'both \' and "'
a = '\\'
a = '\n\t\r\x00\x7f\x80\xa0\xad'
a = 'é ñ 中文 😀 \u200b \u2028 \ufeff \U0001f600'
a = '\ud800 \udfff'
a = u'unicode prefix'
a = r'raw \d+'
a = ''
a = ""
a = 'a' 'b' "c"
b = b'bytes'
b = b"it's"
b = b'\x00\xff\n\\ "'
b = b''
b = rb'\d'
c = '''triple ' " quotes'''
c = """multi
line"""
c = 'ends with quote"'
c = "ends with quote'"
c = "'''" + '"""'
d = '\N{BULLET} \N{EM DASH}'
