"""Transforms nested in one another: loops in loops, exits inside branches inside loops."""
import paddle

def grid(n, m):
    i = 0
    total = 0

    def while_cond_9(i, total):
        return i < n

    def while_body_9(i, total):
        j = 0

        def while_cond_11(j, total):
            return j < m

        def while_body_11(j, total):

            def if_true_12(total):
                total = total + i * j
                return total

            def if_false_12(total):
                total = total - 1
                return total
            total = _jst.IfElse((i + j) % 2 == 0, if_true_12, if_false_12, (total,), ('total',))
            j = j + 1
            return (j, total)
        j, total = _jst.While(while_cond_11, while_body_11, (j, total), ('j', 'total'))
        i = i + 1
        return (i, total)
    i, total = _jst.While(while_cond_9, while_body_9, (i, total), ('i', 'total'))
    return (total, i)

def skip_stop(rows, limit):
    total = 0
    _break_24 = False

    def for_cond_24(_break_24, total):
        return _jst.Not(_break_24)

    def for_body_24(r, _break_24, total):

        def if_true_25(_break_24, total):
            return (_break_24, total)

        def if_false_25(_break_24, total):
            total = total + r

            def if_true_28(_break_24):
                _break_24 = True
                return _break_24

            def if_false_28(_break_24):
                return _break_24
            _break_24 = _jst.IfElse(total > limit, if_true_28, if_false_28, (_break_24,), ('_break_24',))
            return (_break_24, total)
        _break_24, total = _jst.IfElse(r < 0, if_true_25, if_false_25, (_break_24, total), ('_break_24', 'total'))
        return (_break_24, total)
    _break_24, total = _jst.For(rows, for_body_24, (_break_24, total), ('_break_24', 'total'), for_cond_24)
    return total

def halve_until(x, target):
    _return_flag = False
    steps = 0
    _break_36 = False

    def while_cond_36(_break_36, _return_flag, _return_value, steps, x):
        return _jst.And(lambda: _jst.Not(_break_36), lambda: steps < 20)

    def while_body_36(_break_36, _return_flag, _return_value, steps, x):

        def if_true_37(_break_36, _return_flag, _return_value, steps, x):
            _return_flag = True
            _return_value = (x, steps)
            _break_36 = True
            return (_break_36, _return_flag, _return_value, steps, x)

        def if_false_37(_break_36, _return_flag, _return_value, steps, x):
            x = x / 2
            steps = steps + 1
            return (_break_36, _return_flag, _return_value, steps, x)
        _break_36, _return_flag, _return_value, steps, x = _jst.IfElse(x < target, if_true_37, if_false_37, (_break_36, _return_flag, _return_value, steps, x), ('_break_36', '_return_flag', '_return_value', 'steps', 'x'))
        return (_break_36, _return_flag, _return_value, steps, x)
    _return_value = _jst.UndefinedVar('_return_value')
    _break_36, _return_flag, _return_value, steps, x = _jst.While(while_cond_36, while_body_36, (_break_36, _return_flag, _return_value, steps, x), ('_break_36', '_return_flag', '_return_value', 'steps', 'x'))

    def if_true_41(_return_value):
        _return_value = (0, steps)
        return _return_value

    def if_false_41(_return_value):
        return _return_value
    _return_value = _jst.IfElse(_jst.Not(_return_flag), if_true_41, if_false_41, (_return_value,), ('_return_value',))
    return _return_value

def first_big(rows, target):
    _return_flag = False
    _break_46 = False

    def for_cond_46(_break_46, _return_flag, _return_value):
        return _jst.Not(_break_46)

    def for_body_46(_item_46, _break_46, _return_flag, _return_value):
        k, r = _item_46

        def if_true_47(_break_46, _return_flag, _return_value):
            _return_flag = True
            _return_value = k
            _break_46 = True
            return (_break_46, _return_flag, _return_value)

        def if_false_47(_break_46, _return_flag, _return_value):
            return (_break_46, _return_flag, _return_value)
        _break_46, _return_flag, _return_value = _jst.IfElse(r > target, if_true_47, if_false_47, (_break_46, _return_flag, _return_value), ('_break_46', '_return_flag', '_return_value'))
        return (_break_46, _return_flag, _return_value)
    _return_value = _jst.UndefinedVar('_return_value')
    _break_46, _return_flag, _return_value = _jst.For(_jst.Enumerate(rows), for_body_46, (_break_46, _return_flag, _return_value), ('_break_46', '_return_flag', '_return_value'), for_cond_46)

    def if_true_49(_return_value):
        _return_value = -1
        return _return_value

    def if_false_49(_return_value):
        return _return_value
    _return_value = _jst.IfElse(_jst.Not(_return_flag), if_true_49, if_false_49, (_return_value,), ('_return_value',))
    return _return_value

def gather(x, n):
    parts = []
    i = 0

    def while_cond_56(i, parts):
        return i < n

    def while_body_56(i, parts):

        def if_true_57(parts):
            parts.append(x * i)
            return parts

        def if_false_57(parts):
            return parts
        parts = _jst.IfElse(i % 2 == 0, if_true_57, if_false_57, (parts,), ('parts',))
        i = i + 1
        return (i, parts)
    i, parts = _jst.While(while_cond_56, while_body_56, (i, parts), ('i', 'parts'))
    return parts

def shapes_and_casts(x, flag):
    rows = _jst.Len(x)

    def if_true_66():
        y = _jst.Cast(x[0], 'int') + _jst.Cast(x[1], 'float')
        return y

    def if_false_66():

        def if_true_68():
            y = _jst.Cast(rows, 'bool')
            return y

        def if_false_68():
            y = -1
            return y
        y = _jst.IfElse(_jst.Or(lambda: _jst.Not(flag), lambda: rows == 0), if_true_68, if_false_68, (), ('y',))
        return y
    y = _jst.IfElse(_jst.And(lambda: flag, lambda: rows > 1), if_true_66, if_false_66, (), ('y',))
    return _jst.IfExp(y, lambda: y, lambda: 0)

def flatten_rows(x):
    batch = _jst.Shape(x)[0]
    n = paddle.shape(x)[1]

    def if_true_79(x):
        x = paddle.reshape(x, [batch, -1])
        return x

    def if_false_79(x):
        return x
    x = _jst.IfElse(_jst.Shape(x)[1] > 1, if_true_79, if_false_79, (x,), ('x',))
    return (x, n)
EXAMPLES = {'grid': [(3, 4), (0, 4), (2, 0)], 'skip_stop': [([1, -2, 5, 3, 9], 8), ([1, 2], 100), ([], 1)], 'halve_until': [(40.0, 6.0), (40.0, 0.0), (1.0, 2.0)], 'first_big': [([1, 5, 9], 4), ([1, 2], 9)], 'gather': [(2, 5), (3, 0)], 'shapes_and_casts': [([3, 4.5], True), ([3], True), ([], False), ([1, 2], False)]}
