"""if/elif/else: branch functions over the variables each branch writes."""
import paddle

def branch(x):

    def if_true_7():
        y = x * 2
        return y

    def if_false_7():
        y = -x
        return y
    y = _jst.IfElse(x > 0, if_true_7, if_false_7, (), ('y',))
    return y + 1

def elif_chain(x):

    def if_true_16():
        label = 'very negative'
        scale = 3
        return (label, scale)

    def if_false_16():

        def if_true_19():
            label = 'negative'
            scale = 2
            return (label, scale)

        def if_false_19():

            def if_true_22():
                label = 'zero'
                scale = 1
                return (label, scale)

            def if_false_22():
                label = 'positive'
                scale = 0
                return (label, scale)
            label, scale = _jst.IfElse(x == 0, if_true_22, if_false_22, (), ('label', 'scale'))
            return (label, scale)
        label, scale = _jst.IfElse(x < 0, if_true_19, if_false_19, (), ('label', 'scale'))
        return (label, scale)
    label, scale = _jst.IfElse(x < -10, if_true_16, if_false_16, (), ('label', 'scale'))
    return (label, scale * x)

def one_branch(x, flag):
    total = x

    def if_true_34(total):
        extra = x + 1
        total = total + extra
        return total

    def if_false_34(total):
        return total
    total = _jst.IfElse(flag, if_true_34, if_false_34, (total,), ('total',))
    return total

def defined_in_one_branch(x):

    def if_true_42(big):
        big = x
        return big

    def if_false_42(big):
        return big
    big = _jst.UndefinedVar('big')
    big = _jst.IfElse(x > 5, if_true_42, if_false_42, (big,), ('big',))

    def if_true_44():
        _return_value = big
        return _return_value

    def if_false_44():
        _return_value = 0
        return _return_value
    _return_value = _jst.IfElse(x > 5, if_true_44, if_false_44, (), ('_return_value',))
    return _return_value

def temporaries(x, y):

    def if_true_51():
        diff = x - y
        out = diff * diff
        return out

    def if_false_51():
        out = 0
        return out
    out = _jst.IfElse(x > y, if_true_51, if_false_51, (), ('out',))
    return out

def nested(x, y):
    z = 0

    def if_true_62(z):

        def if_true_63():
            z = x + y
            return z

        def if_false_63():
            z = x - y
            return z
        z = _jst.IfElse(y > 0, if_true_63, if_false_63, (), ('z',))
        z = z * 10
        return z

    def if_false_62(z):
        return z
    z = _jst.IfElse(x > 0, if_true_62, if_false_62, (z,), ('z',))
    return z

def side_effects(x, log):

    def if_true_73(log):
        log.append(x)
        return log

    def if_false_73(log):
        _jst.Print('small', x)
        return log
    log = _jst.IfElse(x > 1, if_true_73, if_false_73, (log,), ('log',))
    return _jst.Len(log)

def augmented(x):
    acc = [0, 0]

    def if_true_83(acc):
        acc = _jst.SetItem(acc, 0, acc[0] + x)
        return acc

    def if_false_83(acc):
        acc = _jst.SetItem(acc, 1, acc[1] + x)
        return acc
    acc = _jst.IfElse(x % 2 == 0, if_true_83, if_false_83, (acc,), ('acc',))
    return acc
EXAMPLES = {'branch': [3, -4, 0], 'elif_chain': [-20, -3, 0, 7], 'one_branch': [(2, True), (2, False)], 'defined_in_one_branch': [9, 1], 'temporaries': [(5, 2), (1, 4)], 'nested': [(1, 2), (3, -1), (-1, 5)], 'side_effects': [(3, []), (0, [1])], 'augmented': [4, 5]}
