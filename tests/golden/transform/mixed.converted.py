"""Constructs combined: loops in branches, exits through several levels, names first bound in loops."""
import paddle

def loop_in_branch(x):
    _return_flag = False

    def if_true_7(_return_flag, _return_value, x):
        _break_8 = False

        def while_cond_8(_break_8, _return_flag, _return_value, x):
            return _jst.And(lambda: _jst.Not(_break_8), lambda: x > 0)

        def while_body_8(_break_8, _return_flag, _return_value, x):

            def if_true_9(_break_8, _return_flag, _return_value, x):
                _return_flag = True
                _return_value = 'hit five'
                _break_8 = True
                return (_break_8, _return_flag, _return_value, x)

            def if_false_9(_break_8, _return_flag, _return_value, x):
                x -= 1
                return (_break_8, _return_flag, _return_value, x)
            _break_8, _return_flag, _return_value, x = _jst.IfElse(x == 5, if_true_9, if_false_9, (_break_8, _return_flag, _return_value, x), ('_break_8', '_return_flag', '_return_value', 'x'))
            return (_break_8, _return_flag, _return_value, x)
        _break_8, _return_flag, _return_value, x = _jst.While(while_cond_8, while_body_8, (_break_8, _return_flag, _return_value, x), ('_break_8', '_return_flag', '_return_value', 'x'))
        return (_return_flag, _return_value)

    def if_false_7(_return_flag, _return_value, x):
        return (_return_flag, _return_value)
    _return_value = _jst.UndefinedVar('_return_value')
    _return_flag, _return_value = _jst.IfElse(x > 0, if_true_7, if_false_7, (_return_flag, _return_value, x), ('_return_flag', '_return_value'))

    def if_true_12(_return_value):
        _return_value = 'done'
        return _return_value

    def if_false_12(_return_value):
        return _return_value
    _return_value = _jst.IfElse(_jst.Not(_return_flag), if_true_12, if_false_12, (_return_value,), ('_return_value',))
    return _return_value

def bound_in_loop(n):

    def for_body_17(i, last):
        last = i * 10
        return last
    last = _jst.UndefinedVar('last')
    last = _jst.For(_jst.Range(n), for_body_17, (last,), ('last',))
    return _jst.IfExp(n > 0, lambda: last, lambda: None)

def read_after_while(n):
    k = 0

    def while_cond_25(k, sq):
        return k < n

    def while_body_25(k, sq):
        sq = k * k
        k += 1
        return (k, sq)
    sq = _jst.UndefinedVar('sq')
    k, sq = _jst.While(while_cond_25, while_body_25, (k, sq), ('k', 'sq'))
    return sq

def def_in_branch(x):

    def if_true_33():

        def act(v):
            return v + 1
        return act

    def if_false_33():

        def act(v):
            return v - 1
        return act
    act = _jst.IfElse(x > 0, if_true_33, if_false_33, (), ('act',))
    return _jst.Call(act)(x)

def names_clash(x):
    if_true_46 = 1
    _return_value = 2

    def if_true_46_2():
        _return_value_2 = if_true_46
        return _return_value_2

    def if_false_46():
        _return_value_2 = _return_value
        return _return_value_2
    _return_value_2 = _jst.IfElse(x, if_true_46_2, if_false_46, (), ('_return_value_2',))
    return _return_value_2

def deep_exits(rows):
    _return_flag = False
    out = []
    _break_54 = False

    def for_cond_54(_break_54, _return_flag, _return_value, out):
        return _jst.Not(_break_54)

    def for_body_54(r, _break_54, _return_flag, _return_value, out):
        i = 0
        _break_56 = False

        def while_cond_56(_break_56, _return_flag, _return_value, i, out):
            return _jst.And(lambda: _jst.Not(_break_56), lambda: True)

        def while_body_56(_break_56, _return_flag, _return_value, i, out):

            def if_true_57(_break_56, _return_flag, _return_value, i, out):
                _break_56 = True
                return (_break_56, _return_flag, _return_value, i, out)

            def if_false_57(_break_56, _return_flag, _return_value, i, out):
                v = r[i]
                i += 1

                def if_true_61(_break_56, _return_flag, _return_value, out):
                    return (_break_56, _return_flag, _return_value, out)

                def if_false_61(_break_56, _return_flag, _return_value, out):

                    def if_true_63(_break_56, _return_flag, _return_value, out):
                        _return_flag = True
                        _return_value = out
                        _break_56 = True
                        return (_break_56, _return_flag, _return_value, out)

                    def if_false_63(_break_56, _return_flag, _return_value, out):
                        out.append(v)
                        return (_break_56, _return_flag, _return_value, out)
                    _break_56, _return_flag, _return_value, out = _jst.IfElse(v == 99, if_true_63, if_false_63, (_break_56, _return_flag, _return_value, out), ('_break_56', '_return_flag', '_return_value', 'out'))
                    return (_break_56, _return_flag, _return_value, out)
                _break_56, _return_flag, _return_value, out = _jst.IfElse(v < 0, if_true_61, if_false_61, (_break_56, _return_flag, _return_value, out), ('_break_56', '_return_flag', '_return_value', 'out'))
                return (_break_56, _return_flag, _return_value, i, out)
            _break_56, _return_flag, _return_value, i, out = _jst.IfElse(i >= _jst.Len(r), if_true_57, if_false_57, (_break_56, _return_flag, _return_value, i, out), ('_break_56', '_return_flag', '_return_value', 'i', 'out'))
            return (_break_56, _return_flag, _return_value, i, out)
        _break_56, _return_flag, _return_value, i, out = _jst.While(while_cond_56, while_body_56, (_break_56, _return_flag, _return_value, i, out), ('_break_56', '_return_flag', '_return_value', 'i', 'out'))

        def if_true_56(_break_54):
            _break_54 = True
            return _break_54

        def if_false_56(_break_54):
            return _break_54
        _break_54 = _jst.IfElse(_return_flag, if_true_56, if_false_56, (_break_54,), ('_break_54',))
        return (_break_54, _return_flag, _return_value, out)
    _return_value = _jst.UndefinedVar('_return_value')
    _break_54, _return_flag, _return_value, out = _jst.For(rows, for_body_54, (_break_54, _return_flag, _return_value, out), ('_break_54', '_return_flag', '_return_value', 'out'), for_cond_54)

    def if_true_66(_return_value):
        _return_value = out
        return _return_value

    def if_false_66(_return_value):
        return _return_value
    _return_value = _jst.IfElse(_jst.Not(_return_flag), if_true_66, if_false_66, (_return_value,), ('_return_value',))
    return _return_value

def delete_and_reuse(x):
    tmp = x + 1
    del tmp

    def if_true_73():
        tmp = 3
        return tmp

    def if_false_73():
        tmp = 4
        return tmp
    tmp = _jst.IfElse(x, if_true_73, if_false_73, (), ('tmp',))
    return tmp
EXAMPLES = {'loop_in_branch': [7, 3, -1], 'bound_in_loop': [3, 0], 'read_after_while': [3, 0], 'def_in_branch': [1, -1], 'names_clash': [0, 1], 'deep_exits': [[[[1, -2, 3], [4]]], [[[1, 99, 2], [5]]]], 'delete_and_reuse': [0, 1]}
