# the argparse subset build scripts use
import argparse

parser = argparse.ArgumentParser(description="export a model")
parser.add_argument("--epochs", type=int, default=2, help="training epochs")
parser.add_argument("--lr", type=float, default=0.1)
parser.add_argument("--arch", default="mlp", choices=["mlp", "cnn"])
parser.add_argument("--use-gpu", action="store_true")
parser.add_argument("--no-save", dest="save", action="store_false")
parser.add_argument("--sizes", type=int, nargs="+", default=[8])
parser.add_argument("--tag", action="append")
parser.add_argument("output", nargs="?", default="out_dir")
args = parser.parse_args([])
print(args)
print(args.epochs, args.lr, args.arch, args.use_gpu, args.save, args.sizes, args.tag, args.output)
args = parser.parse_args(["exported", "--epochs", "5", "--lr=0.5", "--use-gpu", "--no-save",
                          "--sizes", "3", "4", "--tag", "a", "--tag", "b", "--arch", "cnn"])
print(args)
known, rest = parser.parse_known_args(["--unknown", "x", "--epochs", "7"])
print(known.epochs, rest, "epochs" in known, parser.get_default("lr"))
ns = argparse.Namespace(a=1, b="two")
print(ns, ns.a, vars(ns))
