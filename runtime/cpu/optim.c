/* optim.c - CPU kernels of the optimizer updates, with Paddle 2.6's formulas in the param's dtype. */
#include "../ops.h"

#include <math.h>
#include <string.h>

/* Every input has param's dtype; inputs from..to-1 (the per-element state) have
 * param's element count. */
static int check_ins(d2_kctx *k, int from, int to)
{
    int64_t n = d2_tensor_numel(k->in[0]);
    for (int i = from; i < to; i++)
        if (d2_tensor_numel(k->in[i]) != n)
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: '%s' has %lld elements, param %lld",
                              k->def->name, k->def->in_names[i],
                              (long long)d2_tensor_numel(k->in[i]), (long long)n);
    for (int i = 1; i < k->n_in; i++)
        if (k->in[i]->dtype != k->in[0]->dtype)
            return d2_err_set(k->err, D2_ERR_DTYPE, "%s: input '%s' is %s but param is %s",
                              k->def->name, k->def->in_names[i], d2_dtype_name(k->in[i]->dtype),
                              d2_dtype_name(k->in[0]->dtype));
    return 0;
}

/* ---- sgd: p - lr * g ---- */
#define SGD(T)                                                                                     \
    static void sgd_##T(d2_kctx *k, int64_t n)                                                     \
    {                                                                                              \
        const T *p = d2_tensor_data(k->in[0]), *g = d2_tensor_data(k->in[1]);                      \
        T lr = *(const T *)d2_tensor_data(k->in[2]);                                               \
        T *po = d2_tensor_data(k->out[0]);                                                         \
        for (int64_t i = 0; i < n; i++)                                                            \
            po[i] = p[i] - lr * g[i];                                                              \
    }
SGD(float)
SGD(double)

/* Inputs from..to-1 have one element (the beta pow accumulators). */
static int one_elem(d2_kctx *k, int from, int to)
{
    for (int i = from; i < to; i++)
        if (d2_tensor_numel(k->in[i]) != 1)
            return d2_err_set(k->err, D2_ERR_SHAPE, "%s: '%s' must have one element",
                              k->def->name, k->def->in_names[i]);
    return 0;
}

int cpu_sgd(d2_kctx *k)
{
    if (check_ins(k, 1, 2) < 0 || one_elem(k, 2, 3) < 0)
        return -1;
    int64_t n = d2_tensor_numel(k->in[0]);
    if (k->in[0]->dtype == D2_F32)
        sgd_float(k, n);
    else
        sgd_double(k, n);
    return 0;
}

/* ---- momentum: v' = mu v + g (g += coeff p under l2_decay); p' = p - lr v', or
 * with Nesterov p' = p - lr (g + mu v') ---- */
#define MOMENTUM(T)                                                                                \
    static void momentum_##T(d2_kctx *k, int64_t n, T mu, bool nesterov, T l2, T rescale)          \
    {                                                                                              \
        const T *p = d2_tensor_data(k->in[0]), *g = d2_tensor_data(k->in[1]);                      \
        const T *v = d2_tensor_data(k->in[3]);                                                     \
        T lr = *(const T *)d2_tensor_data(k->in[2]);                                               \
        T *po = d2_tensor_data(k->out[0]), *vo = d2_tensor_data(k->out[1]);                        \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T gi = g[i] * rescale + l2 * p[i];                                                     \
            T vi = v[i] * mu + gi;                                                                 \
            vo[i] = vi;                                                                            \
            po[i] = nesterov ? p[i] - (gi + vi * mu) * lr : p[i] - lr * vi;                        \
        }                                                                                          \
    }
MOMENTUM(float)
MOMENTUM(double)

int cpu_momentum(d2_kctx *k)
{
    if (check_ins(k, 1, 2) < 0 || check_ins(k, 3, 4) < 0 || one_elem(k, 2, 3) < 0)
        return -1;
    const char *reg = ATTR_STR(k, "regularization_method");
    if (reg[0] && strcmp(reg, "l2_decay") != 0)
        return d2_err_set(k->err, D2_ERR_INVALID,
                          "momentum: regularization_method must be \"\" or \"l2_decay\", got "
                          "\"%s\"",
                          reg);
    double mu = ATTR_FLOAT(k, "mu"), rescale = ATTR_FLOAT(k, "rescale_grad");
    double l2 = reg[0] ? ATTR_FLOAT(k, "regularization_coeff") : 0.0;
    bool nest = ATTR_BOOL(k, "use_nesterov");
    int64_t n = d2_tensor_numel(k->in[0]);
    if (k->in[0]->dtype == D2_F32)
        momentum_float(k, n, (float)mu, nest, (float)l2, (float)rescale);
    else
        momentum_double(k, n, mu, nest, l2, rescale);
    return 0;
}

/* ---- adam / adamw ----
 * lr_t = lr sqrt(1 - b2p) / (1 - b1p); m1' = b1 m1 + (1 - b1) g;
 * m2' = b2 m2 + (1 - b2) g^2; p' = p - lr_t m1' / (sqrt(m2') + eps sqrt(1 - b2p));
 * b1p' = b1p b1, b2p' = b2p b2. AdamW first scales p by 1 - lr lr_ratio coeff
 * and uses lr lr_ratio throughout. */
#define ADAM(T, SQRT)                                                                              \
    static void adam_##T(d2_kctx *k, int64_t n, T b1, T b2, T eps, T lr_ratio, T decay)            \
    {                                                                                              \
        const T *p = d2_tensor_data(k->in[0]), *g = d2_tensor_data(k->in[1]);                      \
        const T *m1 = d2_tensor_data(k->in[3]), *m2 = d2_tensor_data(k->in[4]);                    \
        T b1p = *(const T *)d2_tensor_data(k->in[5]), b2p = *(const T *)d2_tensor_data(k->in[6]);  \
        T lr = *(const T *)d2_tensor_data(k->in[2]) * lr_ratio;                                    \
        T *po = d2_tensor_data(k->out[0]), *m1o = d2_tensor_data(k->out[1]);                       \
        T *m2o = d2_tensor_data(k->out[2]);                                                        \
        T keep = 1 - lr * decay;                                                                   \
        T lr_t = lr * SQRT(1 - b2p) / (1 - b1p);                                                   \
        T eps_t = eps * SQRT(1 - b2p);                                                             \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T pi = decay != 0 ? p[i] * keep : p[i];                                                \
            T a = b1 * m1[i] + (1 - b1) * g[i];                                                    \
            T b = b2 * m2[i] + (1 - b2) * g[i] * g[i];                                             \
            m1o[i] = a;                                                                            \
            m2o[i] = b;                                                                            \
            po[i] = pi - lr_t * (a / (SQRT(b) + eps_t));                                           \
        }                                                                                          \
        *(T *)d2_tensor_data(k->out[3]) = b1p * b1;                                                \
        *(T *)d2_tensor_data(k->out[4]) = b2p * b2;                                                \
    }
ADAM(float, sqrtf)
ADAM(double, sqrt)

static int run_adam(d2_kctx *k, double decay, double lr_ratio)
{
    if (check_ins(k, 3, 5) < 0 || check_ins(k, 1, 2) < 0 || one_elem(k, 5, 7) < 0 ||
        one_elem(k, 2, 3) < 0)
        return -1;
    double b1 = ATTR_FLOAT(k, "beta1"), b2 = ATTR_FLOAT(k, "beta2"), eps = ATTR_FLOAT(k, "epsilon");
    int64_t n = d2_tensor_numel(k->in[0]);
    if (k->in[0]->dtype == D2_F32)
        adam_float(k, n, (float)b1, (float)b2, (float)eps, (float)lr_ratio, (float)decay);
    else
        adam_double(k, n, b1, b2, eps, lr_ratio, decay);
    return 0;
}

int cpu_adam(d2_kctx *k) { return run_adam(k, 0.0, 1.0); }

int cpu_adamw(d2_kctx *k)
{
    double coeff = ATTR_BOOL(k, "with_decay") ? ATTR_FLOAT(k, "coeff") : 0.0;
    return run_adam(k, coeff, ATTR_FLOAT(k, "lr_ratio"));
}

/* ---- rmsprop: ms' = rho ms + (1 - rho) g^2; centered: mg' = rho mg + (1 - rho) g and
 * mom' = momentum mom + lr g / sqrt(ms' - mg'^2 + eps), else mom' = momentum mom +
 * lr g / sqrt(ms' + eps); p' = p - mom' ---- */
#define RMSPROP(T, SQRT)                                                                           \
    static void rmsprop_##T(d2_kctx *k, int64_t n, T rho, T eps, T mom, bool centered)             \
    {                                                                                              \
        const T *p = d2_tensor_data(k->in[0]), *g = d2_tensor_data(k->in[1]);                      \
        const T *ms = d2_tensor_data(k->in[3]), *mo = d2_tensor_data(k->in[4]);                    \
        const T *mg = d2_tensor_data(k->in[5]);                                                    \
        T lr = *(const T *)d2_tensor_data(k->in[2]);                                               \
        T *po = d2_tensor_data(k->out[0]), *mso = d2_tensor_data(k->out[1]);                       \
        T *moo = d2_tensor_data(k->out[2]), *mgo = d2_tensor_data(k->out[3]);                      \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T gi = g[i];                                                                           \
            T s = rho * ms[i] + (1 - rho) * gi * gi;                                               \
            T m;                                                                                   \
            if (centered) {                                                                        \
                T c = rho * mg[i] + (1 - rho) * gi;                                                \
                mgo[i] = c;                                                                        \
                m = mom * mo[i] + lr * gi / SQRT(s - c * c + eps);                                 \
            } else {                                                                               \
                mgo[i] = mg[i];                                                                    \
                m = mom * mo[i] + lr * gi / SQRT(s + eps);                                         \
            }                                                                                      \
            mso[i] = s;                                                                            \
            moo[i] = m;                                                                            \
            po[i] = p[i] - m;                                                                      \
        }                                                                                          \
    }
RMSPROP(float, sqrtf)
RMSPROP(double, sqrt)

int cpu_rmsprop(d2_kctx *k)
{
    if (check_ins(k, 3, 6) < 0 || check_ins(k, 1, 2) < 0 || one_elem(k, 2, 3) < 0)
        return -1;
    int64_t n = d2_tensor_numel(k->in[0]);
    double rho = ATTR_FLOAT(k, "rho"), eps = ATTR_FLOAT(k, "epsilon");
    double mom = ATTR_FLOAT(k, "momentum");
    bool c = ATTR_BOOL(k, "centered");
    if (k->in[0]->dtype == D2_F32)
        rmsprop_float(k, n, (float)rho, (float)eps, (float)mom, c);
    else
        rmsprop_double(k, n, rho, eps, mom, c);
    return 0;
}

/* ---- adagrad: m' = m + g^2; p' = p - lr g / (sqrt(m') + eps) ---- */
#define ADAGRAD(T, SQRT)                                                                           \
    static void adagrad_##T(d2_kctx *k, int64_t n, T eps)                                          \
    {                                                                                              \
        const T *p = d2_tensor_data(k->in[0]), *g = d2_tensor_data(k->in[1]);                      \
        const T *m = d2_tensor_data(k->in[3]);                                                     \
        T lr = *(const T *)d2_tensor_data(k->in[2]);                                               \
        T *po = d2_tensor_data(k->out[0]), *mo = d2_tensor_data(k->out[1]);                        \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T s = m[i] + g[i] * g[i];                                                              \
            mo[i] = s;                                                                             \
            po[i] = p[i] - lr * g[i] / (SQRT(s) + eps);                                            \
        }                                                                                          \
    }
ADAGRAD(float, sqrtf)
ADAGRAD(double, sqrt)

int cpu_adagrad(d2_kctx *k)
{
    if (check_ins(k, 1, 2) < 0 || check_ins(k, 3, 4) < 0 || one_elem(k, 2, 3) < 0)
        return -1;
    int64_t n = d2_tensor_numel(k->in[0]);
    double eps = ATTR_FLOAT(k, "epsilon");
    if (k->in[0]->dtype == D2_F32)
        adagrad_float(k, n, (float)eps);
    else
        adagrad_double(k, n, eps);
    return 0;
}

/* ---- lamb: m1', m2' as adam; r = (m1' / (1 - b1p)) / (sqrt(m2' / (1 - b2p)) + eps) + wd p;
 * p' = p - lr (|p| / |r|) r, the trust ratio 1 when either norm is 0, or when wd is 0 and
 * always_adapt is false ---- */
#define LAMB(T, SQRT)                                                                              \
    static void lamb_##T(d2_kctx *k, int64_t n, T wd, T b1, T b2, T eps, bool adapt)                           \
    {                                                                                              \
        const T *p = d2_tensor_data(k->in[0]), *g = d2_tensor_data(k->in[1]);                      \
        const T *m1 = d2_tensor_data(k->in[3]), *m2 = d2_tensor_data(k->in[4]);                    \
        T b1p = *(const T *)d2_tensor_data(k->in[5]), b2p = *(const T *)d2_tensor_data(k->in[6]);  \
        T lr = *(const T *)d2_tensor_data(k->in[2]);                                               \
        T *po = d2_tensor_data(k->out[0]), *m1o = d2_tensor_data(k->out[1]);                       \
        T *m2o = d2_tensor_data(k->out[2]);                                                        \
        double pn = 0, rn = 0;                                                                     \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T a = b1 * m1[i] + (1 - b1) * g[i];                                                    \
            T b = b2 * m2[i] + (1 - b2) * g[i] * g[i];                                             \
            m1o[i] = a;                                                                            \
            m2o[i] = b;                                                                            \
            T r = (a / (1 - b1p)) / (SQRT(b / (1 - b2p)) + eps) + wd * p[i];                       \
            po[i] = r; /* the update direction, scaled below */                                    \
            pn += (double)p[i] * p[i];                                                             \
            rn += (double)r * r;                                                                   \
        }                                                                                          \
        T pnorm = (T)sqrt(pn), rnorm = (T)sqrt(rn);                                                \
        T ratio = adapt && pnorm > 0 && rnorm > 0 ? pnorm / rnorm : (T)1;                          \
        for (int64_t i = 0; i < n; i++)                                                            \
            po[i] = p[i] - lr * ratio * po[i];                                                     \
        *(T *)d2_tensor_data(k->out[3]) = b1p * b1;                                                \
        *(T *)d2_tensor_data(k->out[4]) = b2p * b2;                                                \
    }
LAMB(float, sqrtf)
LAMB(double, sqrt)

int cpu_lamb(d2_kctx *k)
{
    if (check_ins(k, 3, 5) < 0 || check_ins(k, 1, 2) < 0 || one_elem(k, 5, 7) < 0 ||
        one_elem(k, 2, 3) < 0)
        return -1;
    double wd = ATTR_FLOAT(k, "weight_decay"), b1 = ATTR_FLOAT(k, "beta1");
    double b2 = ATTR_FLOAT(k, "beta2"), eps = ATTR_FLOAT(k, "epsilon");
    bool adapt = wd != 0 || ATTR_BOOL(k, "always_adapt");
    int64_t n = d2_tensor_numel(k->in[0]);
    if (k->in[0]->dtype == D2_F32)
        lamb_float(k, n, (float)wd, (float)b1, (float)b2, (float)eps, adapt);
    else
        lamb_double(k, n, wd, b1, b2, eps, adapt);
    return 0;
}
