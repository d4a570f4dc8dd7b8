"""and/or/not and conditional expressions: _jst.And/Or/Not/IfExp with thunks."""
import paddle

def logic(a, b, c):
    x = _jst.And(lambda: a, lambda: b)
    y = _jst.Or(lambda: a, lambda: b, lambda: c)
    z = _jst.Not(a)
    w = _jst.Or(lambda: _jst.And(lambda: a, lambda: _jst.Not(b)), lambda: c)
    return (x, y, z, w)

def in_tests(a, b):

    def if_true_16():
        r = 1
        return r

    def if_false_16():

        def if_true_18():
            r = -1
            return r

        def if_false_18():
            r = 0
            return r
        r = _jst.IfElse(_jst.Not(_jst.Or(lambda: a > 0, lambda: b > 0)), if_true_18, if_false_18, (), ('r',))
        return r
    r = _jst.IfElse(_jst.And(lambda: a > 0, lambda: b > 0), if_true_16, if_false_16, (), ('r',))
    return r

def ternary(x):
    sign = _jst.IfExp(x >= 0, lambda: 1, lambda: -1)
    mag = _jst.IfExp(x >= 0, lambda: x, lambda: -x)
    return (sign * mag, _jst.IfExp(x % 2 == 0, lambda: 'even', lambda: _jst.IfExp(x > 0, lambda: 'odd', lambda: 'neg-odd')))

def short_circuit(xs):
    return _jst.And(lambda: _jst.Len(xs) > 0, lambda: xs[0] == 1)

def walrus(xs):

    def if_true_39():
        _return_value = n
        return _return_value

    def if_false_39():
        _return_value = 0
        return _return_value
    _return_value = _jst.IfElse((n := _jst.Len(xs)) > 2 and n < 5, if_true_39, if_false_39, (), ('_return_value',))
    return _return_value

def in_lambda_and_comprehension(xs):
    f = lambda v: _jst.And(lambda: v > 0, lambda: v < 10)
    return [v for v in xs if _jst.Or(lambda: _jst.Call(f)(v), lambda: v == -1)]
EXAMPLES = {'logic': [(1, 0, 2), (0, 3, 0), (4, 5, 6)], 'in_tests': [(1, 1), (-1, -1), (1, -1)], 'ternary': [5, -3, 4], 'short_circuit': [[[]], [[1, 2]], [[2]]], 'walrus': [[[1, 2, 3]], [[1]]], 'in_lambda_and_comprehension': [[[5, -1, 20, 3]]]}
