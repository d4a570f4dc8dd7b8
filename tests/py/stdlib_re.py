# re: compile, match, search, fullmatch, findall, finditer, sub, split, groups (on PCRE2)
import re
m = re.match(r"(\w+)_v(\d+)\.(?P<ext>pd\w+)", "resnet_v2.pdmodel")
print(m.group(), m.group(1), m.group(2, "ext"), m.groups(), m.groupdict(), m.span(2), m.start("ext"), m.end(), m[1])
print(re.match(r"\d+", "x12"), re.search(r"\d+", "x12y").group(), re.fullmatch(r"\d+", "123") is not None, re.fullmatch(r"\d+", "123a"))
print(re.findall(r"\d+", "a1b22c333"), re.findall(r"(\w)=(\d)", "a=1, b=2"), re.findall(r"x*", "axxb"), re.findall(r"(a)|b", "ab"))
print(re.sub(r"\s+", " ", "a  b\t\nc"), re.sub(r"(\w+)@(\w+)", r"\2 at \1", "me@host"), re.sub(r"(?P<n>\d)", r"<\g<n>>", "a1b2"))
print(re.sub(r"\d", lambda m: str(int(m.group()) * 2), "a1b2c3"), re.subn("a", "b", "aaa", count=2), re.sub("x*", "-", "abc"))
print(re.split(r"[,;]\s*", "a, b;c,d"), re.split(r"(,)", "a,b"), re.split(r"\s", "a b c", maxsplit=1), re.split("x*", "axb"))
p = re.compile(r"layer(\d+)\.weight", re.IGNORECASE)
print(p, p.pattern, p.groups, [m.group(1) for m in p.finditer("Layer1.weight layer22.WEIGHT bias")], p.search("LAYER3.Weight").span())
print(re.search(r"^b", "a\nb", re.M).span(), re.search(r"a.b", "a\nb", re.S) is not None, re.search(r"a.b", "a\nb"))
print(re.search(r"a b # comment", "ab", re.X).group(), re.escape("a.b*c"), re.match(r"a|ab", "ab").group(), re.match(r"(a)?b", "b").groups())
print(re.search(r"end\Z", "the end"), re.search(r"end\Z", "the end\n"), re.search(r"end$", "the end\n").span(), re.search(r"\bis\b", "this is").span())
print(re.match(r"(?:ab)+", "ababx").group(), re.match(r"a{2,3}", "aaaa").group(), re.match(r"a+?", "aaa").group(), re.match(r"(?=a)a", "a").group())
print(re.findall(r"\w+", "héllo wörld"), re.search(r"é(.)", "café!").span(), re.sub(r"ö", "o", "wörld"))
print(re.match(r"(\d+)-(\d+)?", "12-").groups(default="none"), m.lastindex, re.compile("a") == re.compile("a"))
for bad in [r"(", r"a{2", r"[z-a]", r"(?P<1>x)"]:
    try:
        re.compile(bad)
        print("compiled", bad)
    except re.error as e:
        print("re.error", bad)
try:
    re.sub("a", r"\q", "a")
except re.error as e:
    print(e)
