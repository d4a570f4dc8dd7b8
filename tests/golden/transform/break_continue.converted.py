"""break and continue: flags folded into loop tests and guards."""
import paddle

def first_over(xs, limit):
    found = -1
    i = 0
    _break_9 = False

    def while_cond_9(_break_9, found, i):
        return _jst.And(lambda: _jst.Not(_break_9), lambda: i < _jst.Len(xs))

    def while_body_9(_break_9, found, i):

        def if_true_10(_break_9, found, i):
            found = i
            _break_9 = True
            return (_break_9, found, i)

        def if_false_10(_break_9, found, i):
            i += 1
            return (_break_9, found, i)
        _break_9, found, i = _jst.IfElse(xs[i] > limit, if_true_10, if_false_10, (_break_9, found, i), ('_break_9', 'found', 'i'))
        return (_break_9, found, i)
    _break_9, found, i = _jst.While(while_cond_9, while_body_9, (_break_9, found, i), ('_break_9', 'found', 'i'))
    return found

def skip_odd(n):
    total = 0

    def for_body_20(i, total):

        def if_true_21(total):
            return total

        def if_false_21(total):
            total += i
            return total
        total = _jst.IfElse(i % 2 == 1, if_true_21, if_false_21, (total,), ('total',))
        return total
    total = _jst.For(_jst.Range(n), for_body_20, (total,), ('total',))
    return total

def both(n):
    total = 0
    i = 0
    _break_31 = False

    def while_cond_31(_break_31, i, total):
        return _jst.And(lambda: _jst.Not(_break_31), lambda: i < n)

    def while_body_31(_break_31, i, total):
        i += 1

        def if_true_33(_break_31, total):
            return (_break_31, total)

        def if_false_33(_break_31, total):

            def if_true_35(_break_31, total):
                _break_31 = True
                return (_break_31, total)

            def if_false_35(_break_31, total):
                total += i
                return (_break_31, total)
            _break_31, total = _jst.IfElse(i > 6, if_true_35, if_false_35, (_break_31, total), ('_break_31', 'total'))
            return (_break_31, total)
        _break_31, total = _jst.IfElse(i == 3, if_true_33, if_false_33, (_break_31, total), ('_break_31', 'total'))
        return (_break_31, i, total)
    _break_31, i, total = _jst.While(while_cond_31, while_body_31, (_break_31, i, total), ('_break_31', 'i', 'total'))
    return (total, i)

def nested_break(grid, target):
    hits = 0

    def for_body_44(row, hits):
        _break_45 = False

        def for_cond_45(_break_45, hits):
            return _jst.Not(_break_45)

        def for_body_45(v, _break_45, hits):

            def if_true_46(_break_45, hits):
                hits += 1
                _break_45 = True
                return (_break_45, hits)

            def if_false_46(_break_45, hits):

                def if_true_49(hits):
                    return hits

                def if_false_49(hits):
                    hits += 100
                    return hits
                hits = _jst.IfElse(v < 0, if_true_49, if_false_49, (hits,), ('hits',))
                return (_break_45, hits)
            _break_45, hits = _jst.IfElse(v == target, if_true_46, if_false_46, (_break_45, hits), ('_break_45', 'hits'))
            return (_break_45, hits)
        _break_45, hits = _jst.For(row, for_body_45, (_break_45, hits), ('_break_45', 'hits'), for_cond_45)
        return hits
    hits = _jst.For(grid, for_body_44, (hits,), ('hits',))
    return hits

class Ctx:

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

def continue_in_with(xs):
    seen = []

    def for_body_66(x, seen):
        _continue_66 = False
        with _jst.Call(Ctx)():

            def if_true_68(_continue_66, seen):
                _continue_66 = True
                return (_continue_66, seen)

            def if_false_68(_continue_66, seen):
                seen.append(x)
                return (_continue_66, seen)
            _continue_66, seen = _jst.IfElse(x < 0, if_true_68, if_false_68, (_continue_66, seen), ('_continue_66', 'seen'))

        def if_true_71(seen):
            seen.append(-1)
            return seen

        def if_false_71(seen):
            return seen
        seen = _jst.IfElse(_jst.Not(_continue_66), if_true_71, if_false_71, (seen,), ('seen',))
        return seen
    seen = _jst.For(xs, for_body_66, (seen,), ('seen',))
    return seen

def break_for_else_free(xs):
    last = None
    _break_78 = False

    def for_cond_78(_break_78, last):
        return _jst.Not(_break_78)

    def for_body_78(x, _break_78, last):
        last = x

        def if_true_80(_break_78):
            _break_78 = True
            return _break_78

        def if_false_80(_break_78):
            return _break_78
        _break_78 = _jst.IfElse(x == 0, if_true_80, if_false_80, (_break_78,), ('_break_78',))
        return (_break_78, last)
    _break_78, last = _jst.For(xs, for_body_78, (_break_78, last), ('_break_78', 'last'), for_cond_78)
    return last
EXAMPLES = {'first_over': [([1, 5, 9], 4), ([1, 2], 7)], 'skip_odd': [7, 0], 'both': [10, 2], 'nested_break': [([[1, 2, 3], [-1, 2]], 2), ([[-1], [5]], 9)], 'continue_in_with': [[[1, -2, 3]]], 'break_for_else_free': [[[3, 0, 4]], [[1, 2]]]}
