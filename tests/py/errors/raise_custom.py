class ShapeError(ValueError):
    pass


def check(shape):
    if len(shape) != 2:
        raise ShapeError(f"expected a 2-D shape, got {shape}")


check([2, 3])
check([1, 2, 3])
