"""while and for loops: loop-carried variables found by liveness."""
import paddle

def count_down(n):
    steps = 0

    def while_cond_8(n, steps):
        return n > 0

    def while_body_8(n, steps):
        n = n - 1
        steps += 1
        return (n, steps)
    n, steps = _jst.While(while_cond_8, while_body_8, (n, steps), ('n', 'steps'))
    return steps

def sum_range(n):
    total = 0

    def for_body_17(i, total):
        total = total + i * i
        return total
    total = _jst.For(_jst.Range(n), for_body_17, (total,), ('total',))
    return total

def range_step(a, b):
    out = []

    def for_body_25(i, out):
        out.append(i)
        return out
    out = _jst.For(_jst.Range(a, b, 2), for_body_25, (out,), ('out',))
    return out

def over_list(xs):
    best = None

    def for_body_33(x, best):

        def if_true_34(best):
            best = x
            return best

        def if_false_34(best):
            return best
        best = _jst.IfElse(_jst.Or(lambda: best is None, lambda: x > best), if_true_34, if_false_34, (best,), ('best',))
        return best
    best = _jst.For(xs, for_body_33, (best,), ('best',))
    return best

def target_after_loop(xs):
    i = -1

    def for_body_42(_item_42, i):
        i = _item_42
        return i
    i = _jst.For(xs, for_body_42, (i,), ('i',))
    return i

def tuple_target(pairs):
    acc = 0

    def for_body_50(_item_50, acc):
        k, (a, b) = _item_50
        acc += k * a - b
        return acc
    acc = _jst.For(_jst.Enumerate(pairs), for_body_50, (acc,), ('acc',))
    return acc

def nested_loops(n):
    rows = []
    i = 0

    def while_cond_59(i, rows):
        return i < n

    def while_body_59(i, rows):
        row = []

        def for_body_61(j, row):
            row.append(i * j)
            return row
        row = _jst.For(_jst.Range(i + 1), for_body_61, (row,), ('row',))
        rows.append(row)
        i += 1
        return (i, rows)
    i, rows = _jst.While(while_cond_59, while_body_59, (i, rows), ('i', 'rows'))
    return rows

def temp_in_loop(n):
    x = 1

    def while_cond_71(n, x):
        return n > 0

    def while_body_71(n, x):
        tmp = x * 2
        x = tmp + 1
        n -= 1
        return (n, x)
    n, x = _jst.While(while_cond_71, while_body_71, (n, x), ('n', 'x'))
    return x
EXAMPLES = {'count_down': [5, 0], 'sum_range': [4, 0], 'range_step': [(1, 8), (5, 2)], 'over_list': [[3, 9, 2], []], 'target_after_loop': [[1, 2, 3], []], 'tuple_target': [[[(1, 2), (3, 4), (5, 6)]]], 'nested_loops': [3], 'temp_in_loop': [3]}
