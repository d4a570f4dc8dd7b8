/* tempfile.c - the tempfile module (in Python) over _tempfile's random names. */
#include "lib/std/std.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* _tempfile._name(): 8 characters from CPython's alphabet, from /dev/urandom
 * (else the clock, the process id and a counter). */
D2_FN(tf_name)
{
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
    static unsigned counter;
    unsigned char r[8];
    FILE *f = fopen("/dev/urandom", "rb");
    size_t got = f ? fread(r, 1, sizeof r, f) : 0;
    if (f)
        fclose(f);
    if (got != sizeof r) {
        uint64_t x = (uint64_t)time(NULL) * 2654435761u ^ (uint64_t)getpid() << 20 ^ ++counter;
        for (size_t i = 0; i < sizeof r; i++, x = x * 6364136223846793005u + 1442695040888963407u)
            r[i] = (unsigned char)(x >> 56);
    }
    char name[9];
    for (size_t i = 0; i < 8; i++)
        name[i] = alphabet[r[i] % (sizeof alphabet - 1)];
    name[8] = 0;
    return d2_str_from(I, name);
}

static const d2_def TF_DEFS[] = {
    D2_DEF_POS("_name", "", tf_name, NULL),
};

static const char tempfile_src[] =
    "\"\"\"tempfile: temporary directories and files, removed when done.\"\"\"\n"
    "import os\n"
    "import shutil\n"
    "from _tempfile import _name\n"
    "\n"
    "template = \"tmp\"\n"
    "tempdir = None\n"
    "\n"
    "\n"
    "def gettempdir():\n"
    "    global tempdir\n"
    "    if tempdir is None:\n"
    "        found = None\n"
    "        for key in (\"TMPDIR\", \"TEMP\", \"TMP\"):\n"
    "            value = os.environ.get(key)\n"
    "            if value and os.path.isdir(value):\n"
    "                found = value\n"
    "                break\n"
    "        if found is None:\n"
    "            for cand in (\"/tmp\", \"/var/tmp\", \"/usr/tmp\"):\n"
    "                if os.path.isdir(cand):\n"
    "                    found = cand\n"
    "                    break\n"
    "        tempdir = os.path.abspath(found if found is not None else os.getcwd())\n"
    "    return tempdir\n"
    "\n"
    "\n"
    "def _parts(suffix, prefix, dir):\n"
    "    return (\"\" if suffix is None else suffix,\n"
    "            template if prefix is None else prefix,\n"
    "            gettempdir() if dir is None else dir)\n"
    "\n"
    "\n"
    "def mkdtemp(suffix=None, prefix=None, dir=None):\n"
    "    suffix, prefix, dir = _parts(suffix, prefix, dir)\n"
    "    for _ in range(10000):\n"
    "        path = os.path.join(dir, prefix + _name() + suffix)\n"
    "        try:\n"
    "            os.mkdir(path, 0o700)\n"
    "        except FileExistsError:\n"
    "            continue\n"
    "        return os.path.abspath(path)\n"
    "    raise FileExistsError(\"No usable temporary directory name found\")\n"
    "\n"
    "\n"
    "def mkstemp(suffix=None, prefix=None, dir=None, text=False):\n"
    "    raise NotImplementedError(\"dy2st does not provide tempfile.mkstemp (no file descriptors): \"\n"
    "                              \"use NamedTemporaryFile(delete=False) or mkdtemp()\")\n"
    "\n"
    "\n"
    "class TemporaryDirectory:\n"
    "    def __init__(self, suffix=None, prefix=None, dir=None, ignore_cleanup_errors=False):\n"
    "        self.name = mkdtemp(suffix, prefix, dir)\n"
    "        self._ignore = ignore_cleanup_errors\n"
    "\n"
    "    def __repr__(self):\n"
    "        return \"<TemporaryDirectory %r>\" % self.name\n"
    "\n"
    "    def __enter__(self):\n"
    "        return self.name\n"
    "\n"
    "    def __exit__(self, exc, value, tb):\n"
    "        self.cleanup()\n"
    "        return False\n"
    "\n"
    "    def cleanup(self):\n"
    "        if os.path.exists(self.name):\n"
    "            shutil.rmtree(self.name, self._ignore)\n"
    "\n"
    "\n"
    "class _TemporaryFileWrapper:\n"
    "    def __init__(self, file, name, delete):\n"
    "        self.file = file\n"
    "        self.name = name\n"
    "        self.delete = delete\n"
    "        self._closed = False\n"
    "\n"
    "    def __getattr__(self, name):\n"
    "        return getattr(self.__dict__[\"file\"], name)\n"
    "\n"
    "    def __enter__(self):\n"
    "        return self\n"
    "\n"
    "    def __exit__(self, exc, value, tb):\n"
    "        self.close()\n"
    "        return False\n"
    "\n"
    "    def __iter__(self):\n"
    "        return iter(self.file)\n"
    "\n"
    "    def close(self):\n"
    "        if not self._closed:\n"
    "            self._closed = True\n"
    "            self.file.close()\n"
    "            if self.delete and os.path.exists(self.name):\n"
    "                os.remove(self.name)\n"
    "\n"
    "\n"
    "def NamedTemporaryFile(mode=\"w+b\", buffering=-1, encoding=None, newline=None, suffix=None,\n"
    "                       prefix=None, dir=None, delete=True):\n"
    "    if \"b\" in mode:\n"
    "        raise NotImplementedError(\"dy2st does not provide binary files: pass \"\n"
    "                                  \"NamedTemporaryFile(mode=\\\"w\\\") or another text mode\")\n"
    "    suffix, prefix, dir = _parts(suffix, prefix, dir)\n"
    "    for _ in range(10000):\n"
    "        path = os.path.abspath(os.path.join(dir, prefix + _name() + suffix))\n"
    "        try:\n"
    "            open(path, \"x\").close()\n"
    "        except FileExistsError:\n"
    "            continue\n"
    "        file = open(path, mode.replace(\"x\", \"w\") if \"+\" not in mode else mode,\n"
    "                    encoding=encoding, newline=newline)\n"
    "        return _TemporaryFileWrapper(file, path, delete)\n"
    "    raise FileExistsError(\"No usable temporary file name found\")\n"
    "\n"
    "\n"
    "def TemporaryFile(mode=\"w+b\", buffering=-1, encoding=None, newline=None, suffix=None,\n"
    "                  prefix=None, dir=None):\n"
    "    return NamedTemporaryFile(mode, buffering, encoding, newline, suffix, prefix, dir, True)\n";

int d2_std_tempfile_init(d2_interp *I)
{
    return d2_std_module_defs(I, "_tempfile", TF_DEFS, D2_COUNTOF(TF_DEFS)) &&
                   d2_module_add_source(I, "tempfile", tempfile_src) == 0
               ? 0
               : -1;
}
