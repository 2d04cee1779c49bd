"""Our columns of to_dataframe() (instruction_id, delegate, step, shapes, flops, bytes),
read from the core's row model, against values computed here from the generator's truth
files of fixtures/cpu (`STEM.truth.json`: each delegate's instruction id, its plan steps
and their operators with the shapes the generator gave them), not from our output: the
delegate's short name, the step's event, the shapes' text, and the FLOPs and bytes of the
fully connected and convolution operators worked out by hand from their f32 shapes."""

import json
import math
import os

import pandas as pd
import pytest

import cpuprof

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CPU = os.path.join(ROOT, "fixtures", "cpu")


def _shapes_text(s):
    """`[1, 256], [512, 256] -> [1, 512]`: inputs, then outputs."""
    lists = lambda v: ", ".join("[" + ", ".join(map(str, x)) + "]" for x in v)
    return "{} -> {}".format(lists(s["inputs"]), lists(s["outputs"]))


def _cost(name, s):
    """(FLOPs, bytes) of one call, by hand: a fully connected or convolution operator does
    one multiply-add per output element and weight element of its input channel slice:
    2·(output elements)·(weight elements but the output-channel axis); for a GEMM
    ([M, K] by weight [N, K]) that is 2·M·N·K, for a convolution (weight [Cout, Cin/groups,
    kh, kw]; a 1×1 one is logged as "Fully Connected", a depthwise one has Cin/groups = 1)
    2·(output elements)·(Cin/groups)·kh·kw. Bytes: every f32 input and output once. None
    for any other operator."""
    ins, outs = s["inputs"], s["outputs"]
    if not name.startswith(("Fully Connected", "Convolution")):
        return None
    elements = sum(math.prod(x) for x in ins + outs)
    return 2 * math.prod(outs[0]) * math.prod(ins[1][1:]), 4 * elements


@pytest.mark.parametrize("stem", ["mlp_basic", "cnn2_basic", "wide_browse"])
def test_our_columns_equal_the_generators_truth(stem):
    with open(os.path.join(CPU, stem + ".truth.json")) as f:
        truth = json.load(f)
    df = cpuprof.load(os.path.join(CPU, stem + ".etdp"), warmup=0).to_dataframe()
    ex = df[df.event_block_name == "Execute"]
    by_name = {n: r for n, r in zip(ex.event_name, ex.to_dict("records"))}
    costed = 0
    for d in truth["delegates"]:
        call = ex[(ex.event_name == "DELEGATE_CALL") & (ex.instruction_id == d["instruction_id"])]
        assert list(call.delegate) == ["d{}".format(d["instruction_id"])], stem
        for step in d["steps"]:
            r = by_name[step["event"]]
            assert (r["instruction_id"], r["delegate"], r["step"]) == (
                d["instruction_id"], "d{}".format(d["instruction_id"]), step["event"]), (stem, step["event"])
            for op in step.get("operators", []):
                # Operator names repeat across steps (each XNNPACK subgraph numbers its
                # own): the one row of this name, instruction, delegate and step.
                where = (stem, step["event"], op["event"])
                rows = ex[(ex.event_name == op["event"]) & (ex.instruction_id == d["instruction_id"])
                          & (ex.delegate == "d{}".format(d["instruction_id"])) & (ex.step == step["event"])]
                assert len(rows) == 1, where
                r = rows.to_dict("records")[0]
                if op.get("shapes"):
                    assert r["shapes"] == _shapes_text(op["shapes"]), where
                    cost = _cost(op["event"], op["shapes"])
                    if cost is not None:
                        assert (r["flops"], r["bytes"]) == cost, where
                        costed += 1
    for ins in truth["instructions"]:
        if ins["kind"] == "operator":
            r = by_name[ins["event"]]
            assert r["instruction_id"] == ins["instruction_id"], ins["event"]
            assert pd.isna(r["delegate"]) and pd.isna(r["step"]), ins["event"]
    assert costed >= 3, stem
