#!/bin/sh
# test_layers.sh - the include rules between translator/'s folders and runtime/ (check_layers.py).
exec python3 "${top_srcdir:-.}/tests/layers/check_layers.py" "${top_srcdir:-.}"
