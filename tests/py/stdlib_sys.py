# sys as build scripts use it
import sys
sys.stdout.write("to stdout\n")
print(len(sys.argv) >= 1, isinstance(sys.path, list), sys.platform, sys.version_info >= (3, 8))
print(sys.version_info[0], type(sys.maxsize).__name__)
try:
    sys.exit(0)
except SystemExit as e:
    print("exit", e.args)
try:
    sys.exit("bad")
except SystemExit as e:
    print("exit", e.args)
print(sys.version_info.major, sys.version_info[:2] >= (3, 8), len(sys.version_info), sys.version_info.releaselevel)
