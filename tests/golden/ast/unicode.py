# Unicode identifiers and strings: columns are UTF-8 byte offsets.
π = 3.14159
größe = "größe"
变量 = ["中文", "日本語", "한국어"]
α, β = β, α
résumé = f"{größe}: {变量[0]!r} → {π:.2f}"
emoji = "🐍 and 🎉"
µ = 1
ｗｉｄｔｈ = 2
ﬁle = 3
𝐱 = 4


def 函数(参数=变量, *, ключ="значение"):
    return 参数, ключ, "\N{GREEK SMALL LETTER ALPHA}\N{CYRILLIC SMALL LETTER ZHE}"


class Модель:
    имя: str = "ё"
