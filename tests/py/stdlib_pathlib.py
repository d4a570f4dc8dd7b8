# pathlib.Path: joining, the name parts, files and directories
from pathlib import Path, PurePath
import tempfile
p = Path("out") / "model" / "net.pdmodel"
print(p, repr(p), p.name, p.stem, p.suffix, p.parent, p.parent.parent, p.parts)
print(p.with_suffix(".json"), p.with_name("x.txt"), Path("a.tar.gz").suffixes, Path("a.tar.gz").stem)
print(Path("a//b/./c/"), Path(), Path("/abs", "x"), Path("rel", "/abs2"), Path(".hidden").suffix, Path("/").name)
print("pre" / Path("x"), str(Path("a") / "b"), Path("a/b") == Path("a//b"), Path("a").joinpath("b", "c"))
print(p.is_absolute(), Path("/x").is_absolute(), Path("/a/b/c").relative_to("/a"), [str(q) for q in Path("a/b/c").parents])
print(Path.cwd().is_absolute(), p.with_suffix(""), Path("x.py").with_stem("y") if hasattr(Path, "with_stem") else "y.py")
with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp)
    d = root / "export" / "v1"
    print(d.exists())
    d.mkdir(parents=True)
    d.mkdir(parents=True, exist_ok=True)
    try:
        d.mkdir()
    except FileExistsError:
        print("FileExistsError")
    f = d / "config.txt"
    print(f.write_text("hello\n"), f.read_text(), f.exists(), f.is_file(), d.is_dir(), f.is_dir())
    (d / "b.txt").write_text("b")
    print(sorted(q.name for q in d.iterdir()), sorted(q.name for q in d.glob("*.txt")))
    print(f.relative_to(root), str(f).startswith(tmp))
    f.unlink()
    f.unlink(missing_ok=True)
    print(f.exists())
    try:
        Path(tmp, "missing").read_text()
    except FileNotFoundError:
        print("FileNotFoundError")
try:
    Path("a").with_suffix("json")
except ValueError as e:
    print(e)
import fnmatch
for name, pat in [("a.txt", "*.txt"), ("a.txt", "*.py"), ("model_1.pdparams", "model_?.pd*"), ("x", "[a-z]"),
                  ("X", "[!a-z]"), ("abc", "a*c*"), ("ab", "a*b*c"), ("[x", "[x"), ("", "*")]:
    print(name, pat, fnmatch.fnmatch(name, pat))
print(fnmatch.filter(["a.py", "b.txt", "c.py"], "*.py"))
import os
import shutil
with tempfile.TemporaryDirectory() as t:
    p = Path(t) / "a" / "b"
    os.makedirs(p, exist_ok=True)
    print(os.path.exists(p), os.path.isdir(p), os.path.basename(p), os.path.join(Path("x"), "y"))
    (p / "f.txt").write_text("1")
    shutil.copy(p / "f.txt", Path(t))
    print(sorted(os.listdir(Path(t))), os.path.relpath(p, Path(t)))
    shutil.rmtree(Path(t) / "a")
    print(os.listdir(t))
with tempfile.TemporaryDirectory() as t:
    with open(Path(t) / "x.txt", "w") as f:
        f.write("opened through __fspath__")
    print(open(Path(t, "x.txt")).read())
