/* numpy_module.c - d2_numpy_api_init: the numpy, numpy.random and numpy.testing modules. */
#include "lib/numpy/numpy_priv.h"

#include <math.h>

static void np_fini(d2_interp *I, void *p)
{
    D2_UNUSED(I);
    d2_free(p);
}

static d2_module *np_module(d2_interp *I, const char *name, d2_module *parent, const char *attr)
{
    d2_module *m = d2_module_new_builtin(I, name);
    if (!m)
        return NULL;
    if (parent && d2_dict_set_str(I, parent->dict, attr, (d2_obj *)m) < 0)
        return NULL;
    return m;
}

static int set_float(d2_interp *I, d2_module *m, const char *name, double v)
{
    d2_obj *o = d2_float_new(I, v);
    int rc = o ? d2_dict_set_str(I, m->dict, name, o) : -1;
    d2_decref(o);
    return rc;
}

int d2_numpy_api_init(d2_interp *I)
{
    np_state *s = d2_calloc(1, sizeof *s);
    if (!s) {
        nomem(I);
        return -1;
    }
    I->ext[D2_EXT_NUMPY] = s;
    I->ext_fini[D2_EXT_NUMPY] = np_fini;
    d2_module *np = s->np = np_module(I, "numpy", NULL, NULL);
    d2_module *rnd = s->random = np ? np_module(I, "numpy.random", np, "random") : NULL;
    d2_module *tst = s->testing = np ? np_module(I, "numpy.testing", np, "testing") : NULL;
    if (!np || !rnd || !tst)
        return -1;
    /* ndarray */
    d2_class *nc = d2np_ndarray_init(I, np);
    if (!nc)
        return -1;
    /* dtypes and constants */
    static const struct {
        const char *name;
        d2_dtype dt;
    } dts[] = {{"float32", D2_F32}, {"float64", D2_F64}, {"int32", D2_I32},  {"int64", D2_I64},
               {"bool_", D2_BOOL},  {"single", D2_F32},  {"double", D2_F64}, {"intc", D2_I32},
               {"int_", D2_I64},    {"float_", D2_F64}, {"float16", D2_F16}, {"half", D2_F16},
               {"int8", D2_I8},     {"int16", D2_I16},  {"uint8", D2_U8}};
    for (size_t i = 0; i < D2_COUNTOF(dts); i++) {
        d2_obj *o = d2_pd_dtype_obj(I, dts[i].dt, true);
        if (!o || d2_dict_set_str(I, np->dict, dts[i].name, o) < 0)
            return -1;
    }
    d2_obj *dcls = (d2_obj *)d2_pd_layout_class(I, D2_OBJ_DTYPE, NULL);
    if (!dcls || d2_dict_set_str(I, np->dict, "dtype", dcls) < 0 ||
        d2_dict_set_str(I, np->dict, "newaxis", I->none) < 0 || set_float(I, np, "pi", M_PI) < 0 ||
        set_float(I, np, "e", M_E) < 0 || set_float(I, np, "inf", INFINITY) < 0 ||
        set_float(I, np, "nan", NAN) < 0)
        return -1;
    if (d2np_functions_init(I, np, nc) < 0 || d2np_io_init(I, np) < 0 ||
        d2np_testing_init(I, tst) < 0 || d2np_random_init(I, rnd) < 0)
        return -1;
    return 0;
}
