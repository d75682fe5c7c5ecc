"""Merge pip classifiers (ONNX files from train_pips) into one ONNX file that averages them.

usage: python -m vision.training.ensemble_pips A.onnx B.onnx [...] --out FILE.onnx

The merged model has the same input (`crop`, N x 3 x CROP_SIZE x CROP_SIZE) and output (`logits`,
N x 6) as each member: the mean of the members' logits, so the reader's softmax gives their
geometric-mean vote.
It only adds Add and Mul nodes, which cv2.dnn reads. Needs the `onnx` package.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import onnx
from onnx import compose, helper, numpy_helper

INPUT = "crop"
OUTPUT = "logits"


def merge(paths: list[Path]) -> onnx.ModelProto:
    """One graph running every member on the shared input and averaging their logits."""
    members = [onnx.load(str(p)) for p in paths]
    opset = members[0].opset_import
    nodes: list[onnx.NodeProto] = []
    inits: list[onnx.TensorProto] = []
    outs = []
    for i, m in enumerate(members):
        g = compose.add_prefix(m, f"m{i}_").graph
        rename = {f"m{i}_{INPUT}": INPUT}
        for n in g.node:
            n.input[:] = [rename.get(x, x) for x in n.input]
        nodes += list(g.node)
        inits += list(g.initializer)
        outs.append(f"m{i}_{OUTPUT}")
    total = outs[0]
    for j, o in enumerate(outs[1:]):
        nodes.append(helper.make_node("Add", [total, o], [f"sum{j}"]))
        total = f"sum{j}"
    inits.append(numpy_helper.from_array(np.array(1.0 / len(outs), np.float32), "inv_n"))
    nodes.append(helper.make_node("Mul", [total, "inv_n"], [OUTPUT]))
    first = members[0].graph
    graph = helper.make_graph(
        nodes, "pips_ensemble", list(first.input), list(first.output), initializer=inits
    )
    model = helper.make_model(graph, opset_imports=opset)
    model.ir_version = members[0].ir_version
    onnx.checker.check_model(model)
    return model


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("members", type=Path, nargs="+", help="pip classifier ONNX files")
    ap.add_argument("--out", type=Path, required=True, help="ONNX file to write")
    a = ap.parse_args()
    onnx.save(merge(a.members), str(a.out))
    print(f"{len(a.members)} members -> {a.out} ({a.out.stat().st_size / 1e6:.2f} MB)")


if __name__ == "__main__":
    main()
