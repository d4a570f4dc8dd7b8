# os, os.path, tempfile and shutil as build scripts use them (only relative facts are printed)
import os
import os.path as osp
import shutil
import tempfile

base = tempfile.gettempdir()
print(osp.isabs(base), osp.isdir(base))
with tempfile.TemporaryDirectory(prefix="dy2st_", suffix=".d") as tmp:
    print(osp.isdir(tmp), osp.basename(tmp).startswith("dy2st_"), tmp.endswith(".d"),
          osp.dirname(tmp) == base)
    out = osp.join(tmp, "export", "model")
    os.makedirs(out)
    os.makedirs(out, exist_ok=True)
    try:
        os.makedirs(out)
    except FileExistsError:
        print("FileExistsError")
    cfg = osp.join(out, "config.txt")
    with open(cfg, "w") as f:
        f.write("lr=0.1\n")
    print(osp.exists(cfg), osp.isfile(cfg), osp.isdir(cfg), osp.getsize(cfg))
    print(sorted(os.listdir(out)), sorted(os.listdir(tmp)))
    shutil.copy(cfg, osp.join(out, "copy.txt"))
    shutil.copyfile(cfg, osp.join(tmp, "top.txt"))
    dst = shutil.copy(cfg, tmp)
    print(osp.basename(dst), sorted(os.listdir(tmp)))
    os.rename(osp.join(tmp, "top.txt"), osp.join(tmp, "renamed.txt"))
    os.remove(osp.join(tmp, "config.txt"))
    print(sorted(os.listdir(tmp)))
    try:
        os.remove(osp.join(tmp, "config.txt"))
    except FileNotFoundError as e:
        print(type(e).__name__, e.errno if hasattr(e, "errno") else 2)
    copied = shutil.copytree(osp.join(tmp, "export"), osp.join(tmp, "backup"))
    print(osp.relpath(copied, tmp),
          sorted(os.listdir(osp.join(tmp, "backup", "model"))))
    for dirpath, dirnames, filenames in sorted(os.walk(tmp)):
        print(osp.relpath(dirpath, tmp), sorted(dirnames), sorted(filenames))
    print(osp.relpath("/a/b/c", "/a/x/y"), osp.relpath("/a", "/a"), osp.relpath("/a/b", "/"), osp.relpath("/", "/a/b"))
    shutil.rmtree(osp.join(tmp, "backup"))
    print(osp.exists(osp.join(tmp, "backup")))
    os.mkdir(osp.join(tmp, "empty"))
    os.rmdir(osp.join(tmp, "empty"))
    with tempfile.NamedTemporaryFile("w", suffix=".json", dir=tmp, delete=False) as f:
        f.write("{}")
        name = f.name
    print(osp.dirname(name) == tmp, name.endswith(".json"), open(name).read())
    with tempfile.NamedTemporaryFile("w", dir=tmp) as f:
        f.write("gone")
        name = f.name
        print(osp.exists(name))
    print(osp.exists(name))
    d = tempfile.mkdtemp(dir=tmp)
    print(osp.isdir(d), osp.dirname(d) == tmp, len(osp.basename(d)))
    kept = tmp
print(osp.exists(kept))
print(osp.normpath("a//b/./c/../d"), osp.normpath("/../x"), osp.normpath(""), osp.normpath("../a/.."))
print(osp.splitext("dir.v1/model"), osp.splitext("a/b.tar.gz"), osp.join("a", ""), osp.join("", "b"))
print(osp.abspath("rel") == osp.join(os.getcwd(), "rel"), os.sep, os.name, os.getenv("DY2ST_SURELY_UNSET", "dflt"))
print(os.environ.get("DY2ST_SURELY_UNSET"), "PATH" in os.environ, osp.expanduser("~") == os.environ.get("HOME"))
