/* randmod.c - the random module (in Python) over _random: CPython's MT19937 streams. */
#include "lib/std/std.h"
#include "rng.h"


static void mt_fin(void *p)
{
    d2_free(p);
}

D2_FN(r_new)
{
    d2_mt19937 *mt = d2_calloc(1, sizeof *mt);
    d2_obj *o = mt ? d2_obj_alloc(I, D2_OBJ_OPAQUE, NULL, sizeof(d2_opaque)) : NULL;
    if (!o) {
        d2_free(mt);
        return mt ? NULL : d2_raise(I, "MemoryError", "out of memory");
    }
    d2_mt_seed(mt, 5489u);
    D2_AS(d2_opaque, o)->payload = mt;
    D2_AS(d2_opaque, o)->fin = mt_fin;
    return o;
}

static d2_mt19937 *state_of(d2_interp *I, d2_obj *o)
{
    if (o->kind != D2_OBJ_OPAQUE || D2_AS(d2_opaque, o)->fin != mt_fin) {
        d2_raise(I, "TypeError", "expected a random state, not %s", d2_type_name(o));
        return NULL;
    }
    return D2_AS(d2_opaque, o)->payload;
}

/* CPython's seed of an int: init_by_array of |n|'s 32-bit words, lowest first. */
D2_FN(r_seed) /* a[0] state, a[1] n */
{
    d2_mt19937 *mt = state_of(I, a[0]);
    int64_t n;
    if (!mt || d2_to_int64(I, a[1], "seed", &n) < 0)
        return NULL;
    uint64_t u = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
    uint32_t key[2] = {(uint32_t)u, (uint32_t)(u >> 32)};
    d2_mt_seed_array(mt, key, key[1] ? 2 : 1);
    return d2_none(I);
}

D2_FN(r_seed_urandom) /* a[0] state */
{
    d2_mt19937 *mt = state_of(I, a[0]);
    if (!mt)
        return NULL;
    uint32_t key[8];
    d2_std_urandom(key, sizeof key);
    d2_mt_seed_array(mt, key, 8);
    return d2_none(I);
}

D2_FN(r_genrand) /* a[0] state */
{
    d2_mt19937 *mt = state_of(I, a[0]);
    return mt ? d2_int_new(I, d2_mt_next32(mt)) : NULL;
}

D2_FN(r_random) /* a[0] state: CPython's random_random */
{
    d2_mt19937 *mt = state_of(I, a[0]);
    if (!mt)
        return NULL;
    uint32_t x = d2_mt_next32(mt) >> 5, y = d2_mt_next32(mt) >> 6;
    return d2_float_new(I, (x * 67108864.0 + y) * (1.0 / 9007199254740992.0));
}

static const d2_def RANDOM_DEFS[] = {
    D2_DEF_POS("new", "", r_new, NULL),
    D2_DEF_POS("seed", "state, n, /", r_seed, NULL),
    D2_DEF_POS("seed_urandom", "state, /", r_seed_urandom, NULL),
    D2_DEF_POS("genrand", "state, /", r_genrand, NULL),
    D2_DEF_POS("random", "state, /", r_random, NULL),
};

static const char random_src[] =
    "\"\"\"random: CPython's Random on MT19937: the same numbers for the same int seed.\"\"\"\n"
    "import math\n"
    "import _random\n"
    "\n"
    "_NV_MAGICCONST = 4 * math.exp(-0.5) / math.sqrt(2.0)\n"
    "_TWOPI = 2.0 * math.pi\n"
    "\n"
    "\n"
    "class Random:\n"
    "    def __init__(self, x=None):\n"
    "        self._state = _random.new()\n"
    "        self.seed(x)\n"
    "\n"
    "    def seed(self, a=None, version=2):\n"
    "        if a is None:\n"
    "            _random.seed_urandom(self._state)\n"
    "        elif isinstance(a, bool) or isinstance(a, int):\n"
    "            _random.seed(self._state, int(a))\n"
    "        elif isinstance(a, float) and a == int(a):\n"
    "            _random.seed(self._state, int(a))\n"
    "        else:\n"
    "            raise NotImplementedError(\"dy2st's random.seed takes an int (or None), not %s\"\n"
    "                                      % type(a).__name__)\n"
    "        self.gauss_next = None\n"
    "\n"
    "    def random(self):\n"
    "        return _random.random(self._state)\n"
    "\n"
    "    def getrandbits(self, k):\n"
    "        if k < 0:\n"
    "            raise ValueError(\"number of bits must be non-negative\")\n"
    "        if k == 0:\n"
    "            return 0\n"
    "        if k <= 32:\n"
    "            return _random.genrand(self._state) >> (32 - k)\n"
    "        if k > 63:\n"
    "            raise OverflowError(\"dy2st's getrandbits gives at most 63 bits (ints are 64-bit)\")\n"
    "        low = _random.genrand(self._state)\n"
    "        high = _random.genrand(self._state) >> (64 - k)\n"
    "        return (high << 32) | low\n"
    "\n"
    "    def _randbelow(self, n):\n"
    "        k = n.bit_length()\n"
    "        r = self.getrandbits(k)\n"
    "        while r >= n:\n"
    "            r = self.getrandbits(k)\n"
    "        return r\n"
    "\n"
    "    def randrange(self, start, stop=None, step=1):\n"
    "        if stop is None:\n"
    "            if step != 1:\n"
    "                raise TypeError(\"Missing a non-None stop argument\")\n"
    "            if start > 0:\n"
    "                return self._randbelow(start)\n"
    "            raise ValueError(\"empty range for randrange()\")\n"
    "        width = stop - start\n"
    "        if step == 1:\n"
    "            if width > 0:\n"
    "                return start + self._randbelow(width)\n"
    "            raise ValueError(\"empty range for randrange() (%d, %d, %d)\" % (start, stop, width))\n"
    "        if step > 0:\n"
    "            n = (width + step - 1) // step\n"
    "        elif step < 0:\n"
    "            n = (width + step + 1) // step\n"
    "        else:\n"
    "            raise ValueError(\"zero step for randrange()\")\n"
    "        if n <= 0:\n"
    "            raise ValueError(\"empty range for randrange()\")\n"
    "        return start + step * self._randbelow(n)\n"
    "\n"
    "    def randint(self, a, b):\n"
    "        return self.randrange(a, b + 1)\n"
    "\n"
    "    def choice(self, seq):\n"
    "        if not len(seq):\n"
    "            raise IndexError(\"Cannot choose from an empty sequence\")\n"
    "        return seq[self._randbelow(len(seq))]\n"
    "\n"
    "    def shuffle(self, x):\n"
    "        for i in reversed(range(1, len(x))):\n"
    "            j = self._randbelow(i + 1)\n"
    "            x[i], x[j] = x[j], x[i]\n"
    "\n"
    "    def sample(self, population, k, *, counts=None):\n"
    "        if counts is not None:\n"
    "            raise NotImplementedError(\"dy2st's random.sample takes no counts=\")\n"
    "        if isinstance(population, (set, frozenset)):\n"
    "            raise TypeError(\"Population must be a sequence.  For dicts or sets, use sorted(d).\")\n"
    "        n = len(population)\n"
    "        if not 0 <= k <= n:\n"
    "            raise ValueError(\"Sample larger than population or is negative\")\n"
    "        result = [None] * k\n"
    "        setsize = 21\n"
    "        if k > 5:\n"
    "            setsize += 4 ** math.ceil(math.log(k * 3, 4))\n"
    "        if n <= setsize:\n"
    "            pool = list(population)\n"
    "            for i in range(k):\n"
    "                j = self._randbelow(n - i)\n"
    "                result[i] = pool[j]\n"
    "                pool[j] = pool[n - i - 1]\n"
    "        else:\n"
    "            selected = set()\n"
    "            for i in range(k):\n"
    "                j = self._randbelow(n)\n"
    "                while j in selected:\n"
    "                    j = self._randbelow(n)\n"
    "                selected.add(j)\n"
    "                result[i] = population[j]\n"
    "        return result\n"
    "\n"
    "    def uniform(self, a, b):\n"
    "        return a + (b - a) * self.random()\n"
    "\n"
    "    def gauss(self, mu=0.0, sigma=1.0):\n"
    "        z = self.gauss_next\n"
    "        self.gauss_next = None\n"
    "        if z is None:\n"
    "            x2pi = self.random() * _TWOPI\n"
    "            g2rad = math.sqrt(-2.0 * math.log(1.0 - self.random()))\n"
    "            z = math.cos(x2pi) * g2rad\n"
    "            self.gauss_next = math.sin(x2pi) * g2rad\n"
    "        return mu + z * sigma\n"
    "\n"
    "    def normalvariate(self, mu=0.0, sigma=1.0):\n"
    "        while True:\n"
    "            u1 = self.random()\n"
    "            u2 = 1.0 - self.random()\n"
    "            z = _NV_MAGICCONST * (u1 - 0.5) / u2\n"
    "            zz = z * z / 4.0\n"
    "            if zz <= -math.log(u2):\n"
    "                break\n"
    "        return mu + z * sigma\n"
    "\n"
    "\n"
    "_inst = Random()\n"
    "seed = _inst.seed\n"
    "random = _inst.random\n"
    "getrandbits = _inst.getrandbits\n"
    "randrange = _inst.randrange\n"
    "randint = _inst.randint\n"
    "choice = _inst.choice\n"
    "shuffle = _inst.shuffle\n"
    "sample = _inst.sample\n"
    "uniform = _inst.uniform\n"
    "gauss = _inst.gauss\n"
    "normalvariate = _inst.normalvariate\n";

int d2_std_random_init(d2_interp *I)
{
    return d2_std_helper_and_source(I, "_random", RANDOM_DEFS, D2_COUNTOF(RANDOM_DEFS), "random",
                                    random_src);
}
