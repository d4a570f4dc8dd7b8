/* typing.c - the typing, _collections and abc modules: names for annotations and bases. */
#include "lib/std/std.h"

/* OrderedDict.__repr__: OrderedDict([(key, value), ...]). */
static d2_obj *odict_repr(d2_interp *I, d2_obj *self, d2_obj **a, size_t n, d2_dict *kw)
{
    (void)a;
    (void)n;
    (void)kw;
    d2_dict *d = D2_AS(d2_dict, self);
    if (d->live == 0)
        return d2_str_printf(I, "%s()", d2_type_name(self));
    int in = d2_repr_enter(I, self);
    if (in)
        return in < 0 ? NULL : d2_str_from(I, "...");
    d2_obj *items = d2_list_new(I, 0);
    for (size_t i = 0; items && i < d->n; i++) {
        if (!d->entries[i].key)
            continue;
        d2_obj *t = d2_tuple_pack(I, 2, d->entries[i].key, d->entries[i].value);
        if (!t || d2_list_append(I, items, t) < 0) {
            d2_decref(t);
            d2_decref(items);
            items = NULL;
            break;
        }
        d2_decref(t);
    }
    d2_obj *r = items ? d2_repr(I, items) : NULL;
    d2_repr_leave(I);
    d2_decref(items);
    if (!r)
        return NULL;
    d2_obj *out = d2_str_printf(I, "%s(%s)", d2_type_name(self), D2_AS(d2_str, r)->s);
    d2_decref(r);
    return out;
}

static const d2_def ABC_DEFS[] = {
    D2_DEF("abstractmethod", "*args, **kwargs", d2_std_identity, NULL),
};

int d2_std_typing_init(d2_interp *I)
{
    /* typing: subscriptable placeholders */
    d2_module *m = d2_std_module(I, "typing");
    static const char *const typing_names[] = {
        "Any", "List", "Dict", "Tuple", "Optional", "Union", "Callable", "Sequence", "Iterable",
        "Iterator", "Type", "Set", "Mapping", "Generic", "TypeVar", "NamedTuple", "Literal",
        "ClassVar", "Final", "Protocol", "FrozenSet", "Hashable", "MutableMapping",
    };
    if (!m)
        return -1;
    for (size_t i = 0; i < D2_COUNTOF(typing_names); i++) {
        d2_class *c = d2_class_new_builtin(I, typing_names[i], NULL, D2_OBJ_INSTANCE, m);
        if (d2_std_set(I, m->dict, typing_names[i], (d2_obj *)c) < 0)
            return -1;
    }
    /* collections (in Python, collections.c) takes OrderedDict from here */
    m = d2_std_module(I, "_collections");
    d2_class *od =
        m ? d2_class_new_builtin(I, "OrderedDict", I->types[D2_OBJ_DICT], D2_OBJ_DICT, m) : NULL;
    if (!od || d2_class_add_method(I, od, "__repr__", odict_repr) < 0 ||
        d2_std_set(I, m->dict, "OrderedDict", (d2_obj *)od) < 0)
        return -1;
    /* abc */
    m = d2_std_module(I, "abc");
    d2_class *abc = m ? d2_class_new_builtin(I, "ABC", NULL, D2_OBJ_INSTANCE, m) : NULL;
    if (!abc || d2_std_set(I, m->dict, "ABC", (d2_obj *)abc) < 0 ||
        d2_dict_set_str(I, m->dict, "ABCMeta", (d2_obj *)I->types[D2_OBJ_CLASS]) < 0 ||
        d2_module_add_defs(I, m, ABC_DEFS, D2_COUNTOF(ABC_DEFS)) < 0)
        return -1;
    return 0;
}
