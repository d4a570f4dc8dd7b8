# a build script as Paddle users write one: arguments, logging, a temp export dir, a json config
import argparse
import json
import logging
import os
import shutil
import sys
import tempfile
from collections import OrderedDict
from dataclasses import dataclass, field, asdict
from pathlib import Path

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
logger = logging.getLogger("export")


@dataclass
class ExportSpec:
    model: str
    input_shape: list = field(default_factory=lambda: [1, 3, 224, 224])
    precision: str = "fp32"


def parse(argv):
    parser = argparse.ArgumentParser(description="export a model")
    parser.add_argument("--model", default="resnet18")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--fp16", action="store_true")
    parser.add_argument("--out", default=None)
    return parser.parse_args(argv)


def export(args, out_dir):
    spec = ExportSpec(args.model, [args.batch, 3, 224, 224], "fp16" if args.fp16 else "fp32")
    os.makedirs(os.path.join(out_dir, "inference"), exist_ok=True)
    meta = OrderedDict(spec=asdict(spec), files=["model.pdmodel", "model.pdiparams"])
    with open(os.path.join(out_dir, "inference", "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
    for name in meta["files"]:
        Path(out_dir, "inference", name).write_text("placeholder for " + name)
    logger.info("wrote %d files for %s", len(meta["files"]) + 1, spec.model)
    return spec


with tempfile.TemporaryDirectory() as tmp:
    args = parse(["--model", "mobilenet", "--batch", "8", "--fp16"])
    print(args)
    spec = export(args, tmp)
    print(spec)
    inference = os.path.join(tmp, "inference")
    print(sorted(os.listdir(inference)))
    with open(os.path.join(inference, "meta.json")) as f:
        text = f.read()
    print(text)
    back = json.loads(text)
    print(back["spec"]["input_shape"], back["spec"] == asdict(spec))
    shutil.copytree(inference, os.path.join(tmp, "release"))
    shutil.rmtree(inference)
    print(sorted(os.listdir(tmp)), sorted(p.name for p in Path(tmp, "release").iterdir()))
    defaults = parse([])
    logger.info("defaults: model=%s batch=%d fp16=%s out=%s", defaults.model, defaults.batch, defaults.fp16, defaults.out)
logger.warning("temporary directory removed: %s", not os.path.exists(tmp))
