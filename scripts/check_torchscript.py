#!/usr/bin/env python3
"""Runs an exported checkers-zero model in Python's torch.

Usage: check_torchscript.py EXPORT_DIR INPUT.npy OUTPUT.npy

Loads EXPORT_DIR/model.json and the TorchScript module it names with torch.jit.load, checks
the input against the recorded input shape, runs the module on INPUT.npy (float32,
[batch, planes, height, width]) and writes its output ([batch, num_actions + 3]: policy
logits, then win/draw/loss logits) to OUTPUT.npy. The Rust test `tests/play/export.rs` compares
that output with the Rust net's.
"""

import json
import os
import sys

import numpy as np
import torch


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    export_dir, input_path, output_path = argv[1:]
    with open(os.path.join(export_dir, "model.json"), encoding="utf-8") as f:
        meta = json.load(f)
    module = torch.jit.load(os.path.join(export_dir, meta["torchscript"]), map_location="cpu")
    module.eval()
    x = torch.from_numpy(np.load(input_path)).to(torch.float32)
    expected = meta["input_shape"][1:]
    if list(x.shape[1:]) != expected:
        print(f"input shape {list(x.shape)} does not match model.json {expected}", file=sys.stderr)
        return 1
    with torch.no_grad():
        y = module(x)
    actions = meta["action_space"]["size"]
    if list(y.shape) != [x.shape[0], actions + 3]:
        print(f"output shape {list(y.shape)}, expected [{x.shape[0]}, {actions + 3}]", file=sys.stderr)
        return 1
    np.save(output_path, y.numpy().astype(np.float32))
    print(f"torch {torch.__version__}: {meta['game']} batch {x.shape[0]} -> {list(y.shape)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
