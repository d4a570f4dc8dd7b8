# f-strings as ast.unparse rewrites them.
name = 'x'
a = f'hello {name}'
a = f"{name!r} {name!s} {name!a}"
a = f'{x:>10}'
a = f'{x:{width}.{prec}}'
a = f'{x:{width}}'
a = f"{'nested'}"
a = f'{"nested"}'
a = f'{x}\n{y}'
a = f'tab\there'
a = f'{{literal}} {x}'
a = f'{ {1: 2}[k] }'
a = f'{(lambda: 1)()}'
a = f'{a if b else c}'
a = f'{x, y}'
a = f'{(yield)}'
a = f'{x!r:^20}'
a = f"{x['key']}"
a = f'{x["key"]}'
a = f"it's {x}"
a = f'say "{x}"'
a = f'''both ' and " {x}'''
a = f'{f"{x}"}'
a = f'{x:%Y-%m-%d}'
a = f'{3.14:.2f}'
a = f'{x=}'
a = f'{x = !r}'
a = f'a' 'b' f'{c}'
a = f''
a = f'{a}{b}{c}'
a = f'{"a" "b"}'
a = f'{x:\n}'
a = f"""multi
line {x}"""
a = f'\\ {x}'
a = f'{x}' f"'"
a = f'{x}\'"'
a = rf'\d{x}'
a = f'{x:{"a"}}'
a = f'é {x} 中'
