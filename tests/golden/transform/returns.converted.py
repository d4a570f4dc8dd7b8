"""return inside branches and loops: a return flag and value, one return at the end."""
import paddle

def early(x):

    def if_true_7():
        _return_value = -x
        return _return_value

    def if_false_7():
        y = x * 2
        _return_value = y
        return _return_value
    _return_value = _jst.IfElse(x < 0, if_true_7, if_false_7, (), ('_return_value',))
    return _return_value

def in_loop(xs, target):
    _return_flag = False
    i = 0
    _break_16 = False

    def while_cond_16(_break_16, _return_flag, _return_value, i):
        return _jst.And(lambda: _jst.Not(_break_16), lambda: i < _jst.Len(xs))

    def while_body_16(_break_16, _return_flag, _return_value, i):

        def if_true_17(_break_16, _return_flag, _return_value, i):
            _return_flag = True
            _return_value = i
            _break_16 = True
            return (_break_16, _return_flag, _return_value, i)

        def if_false_17(_break_16, _return_flag, _return_value, i):
            i += 1
            return (_break_16, _return_flag, _return_value, i)
        _break_16, _return_flag, _return_value, i = _jst.IfElse(xs[i] == target, if_true_17, if_false_17, (_break_16, _return_flag, _return_value, i), ('_break_16', '_return_flag', '_return_value', 'i'))
        return (_break_16, _return_flag, _return_value, i)
    _return_value = _jst.UndefinedVar('_return_value')
    _break_16, _return_flag, _return_value, i = _jst.While(while_cond_16, while_body_16, (_break_16, _return_flag, _return_value, i), ('_break_16', '_return_flag', '_return_value', 'i'))

    def if_true_20(_return_value):
        _return_value = -1
        return _return_value

    def if_false_20(_return_value):
        return _return_value
    _return_value = _jst.IfElse(_jst.Not(_return_flag), if_true_20, if_false_20, (_return_value,), ('_return_value',))
    return _return_value

def in_for(xs):
    _return_flag = False
    _break_25 = False

    def for_cond_25(_break_25, _return_flag, _return_value):
        return _jst.Not(_break_25)

    def for_body_25(x, _break_25, _return_flag, _return_value):

        def if_true_26(_break_25, _return_flag, _return_value):
            _return_flag = True
            _return_value = x
            _break_25 = True
            return (_break_25, _return_flag, _return_value)

        def if_false_26(_break_25, _return_flag, _return_value):
            return (_break_25, _return_flag, _return_value)
        _break_25, _return_flag, _return_value = _jst.IfElse(x > 10, if_true_26, if_false_26, (_break_25, _return_flag, _return_value), ('_break_25', '_return_flag', '_return_value'))
        return (_break_25, _return_flag, _return_value)
    _return_value = _jst.UndefinedVar('_return_value')
    _break_25, _return_flag, _return_value = _jst.For(xs, for_body_25, (_break_25, _return_flag, _return_value), ('_break_25', '_return_flag', '_return_value'), for_cond_25)

    def if_true_28(_return_value):
        _jst.Print('none above 10')
        _return_value = None
        return _return_value

    def if_false_28(_return_value):
        return _return_value
    _return_value = _jst.IfElse(_jst.Not(_return_flag), if_true_28, if_false_28, (_return_value,), ('_return_value',))
    return _return_value

def nested_loops(grid):
    _return_flag = False
    _break_33 = False

    def for_cond_33(_break_33, _return_flag, _return_value):
        return _jst.Not(_break_33)

    def for_body_33(i, _break_33, _return_flag, _return_value):
        _break_34 = False

        def for_cond_34(_break_34, _return_flag, _return_value):
            return _jst.Not(_break_34)

        def for_body_34(j, _break_34, _return_flag, _return_value):

            def if_true_35(_break_34, _return_flag, _return_value):
                _return_flag = True
                _return_value = (i, j)
                _break_34 = True
                return (_break_34, _return_flag, _return_value)

            def if_false_35(_break_34, _return_flag, _return_value):
                return (_break_34, _return_flag, _return_value)
            _break_34, _return_flag, _return_value = _jst.IfElse(grid[i][j] == 0, if_true_35, if_false_35, (_break_34, _return_flag, _return_value), ('_break_34', '_return_flag', '_return_value'))
            return (_break_34, _return_flag, _return_value)
        _break_34, _return_flag, _return_value = _jst.For(_jst.Range(_jst.Len(grid[i])), for_body_34, (_break_34, _return_flag, _return_value), ('_break_34', '_return_flag', '_return_value'), for_cond_34)

        def if_true_34(_break_33):
            _break_33 = True
            return _break_33

        def if_false_34(_break_33):
            grid[i].append(0)
            return _break_33
        _break_33 = _jst.IfElse(_return_flag, if_true_34, if_false_34, (_break_33,), ('_break_33',))
        return (_break_33, _return_flag, _return_value)
    _return_value = _jst.UndefinedVar('_return_value')
    _break_33, _return_flag, _return_value = _jst.For(_jst.Range(_jst.Len(grid)), for_body_33, (_break_33, _return_flag, _return_value), ('_break_33', '_return_flag', '_return_value'), for_cond_33)

    def if_true_38(_return_value):
        _return_value = None
        return _return_value

    def if_false_38(_return_value):
        return _return_value
    _return_value = _jst.IfElse(_jst.Not(_return_flag), if_true_38, if_false_38, (_return_value,), ('_return_value',))
    return _return_value

def chain(x):

    def if_true_43():
        _return_value = 'one'
        return _return_value

    def if_false_43():

        def if_true_45():
            _return_value = 'two'
            return _return_value

        def if_false_45():

            def if_true_48():
                _return_value = 'big'
                return _return_value

            def if_false_48():
                _return_value = 'other'
                return _return_value
            _return_value = _jst.IfElse(x > 100, if_true_48, if_false_48, (), ('_return_value',))
            return _return_value
        _return_value = _jst.IfElse(x == 2, if_true_45, if_false_45, (), ('_return_value',))
        return _return_value
    _return_value = _jst.IfElse(x == 1, if_true_43, if_false_43, (), ('_return_value',))
    return _return_value

def bare(x, out):

    def if_true_55(out):
        out.append(1)
        _return_value = None
        return _return_value

    def if_false_55(out):
        out.append(2)
        _return_value = None
        return _return_value
    _return_value = _jst.IfElse(x, if_true_55, if_false_55, (out,), ('_return_value',))
    return _return_value

def after_with(x):
    _return_flag = False
    with open(__file__) as f:

        def if_true_64(_return_flag, _return_value):
            _return_flag = True
            _return_value = _jst.Call(f.readline)()[:3]
            return (_return_flag, _return_value)

        def if_false_64(_return_flag, _return_value):
            return (_return_flag, _return_value)
        _return_value = _jst.UndefinedVar('_return_value')
        _return_flag, _return_value = _jst.IfElse(x, if_true_64, if_false_64, (_return_flag, _return_value), ('_return_flag', '_return_value'))

    def if_true_66(_return_value):
        _return_value = x
        return _return_value

    def if_false_66(_return_value):
        return _return_value
    _return_value = _jst.IfElse(_jst.Not(_return_flag), if_true_66, if_false_66, (_return_value,), ('_return_value',))
    return _return_value
EXAMPLES = {'early': [-3, 4], 'in_loop': [([4, 5, 6], 5), ([1], 7)], 'in_for': [[[1, 20, 30]], [[1, 2]]], 'nested_loops': [[[[1, 2], [3, 0]]], [[[1]]]], 'chain': [1, 2, 500, 7], 'bare': [(1, []), (0, [])], 'after_with': [0, 1]}
