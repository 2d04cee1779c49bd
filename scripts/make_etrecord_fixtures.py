#!/usr/bin/env python3
"""Make real ETRecord + program + ETDump fixtures with executorch 1.5.1 and record what the
ExecuTorch Inspector says about them (where it can read them).

Programs (all exported with generate_etrecord=True, run through the pybindings with
enable_etdump=True, RUNS runs per method):
  modules_xnnpack   Model below, XNNPACK partitioner: delegates span modules, flip and
                    cumsum run as portable kernels between them. Files: .pte, .etrecord,
                    .etdp, .inspector.json (Inspector(etdump, etrecord): every event's
                    op_types, debug handles, module hierarchy keys and mean; every module's
                    find_total_for_module with whether its substring match is ambiguous).
  modules_portable  The same model without delegation. Files as above, but the ETRecord
                    is named modules_portable.etrecord.bin (the other name looked for).
  three_method      prefill / decode / score: three different methods of one program.
                    The Inspector cannot read its ETRecord (it reads only `forward`): its
                    error is recorded. Files: .pte, .etrecord, .etdp, .run.json (run order).
  twin_method       prefill and decode are the same module (identical instruction lists,
                    so identical run signatures), score differs. Files as three_method.

Damaged copies (`damage`, stdlib only; from the files above):
  bad_truncated.etrecord      modules_xnnpack.etrecord cut to half its length
  bad_deflated.etrecord       the same entries written ZIP_DEFLATED (not what ETRecords are)
  bad_json.etrecord           debug_handle_map replaced by text that is not JSON
  bad_program_json.etrecord   the only method's edge program cut short (not JSON)
  bad_missing_method.etrecord three_method.etrecord without edge_dialect_exported_program/decode
  bad_handle.etrecord         instruction 4 (cumsum) of modules_xnnpack mapped to handle 99,
                              which no node carries
  old_layout.etrecord         modules_xnnpack.etrecord in the older layout: one
                              `edge_dialect_exported_program` entry, maps not keyed by method
  bad_truncated.pte           modules_xnnpack.pte cut to half its length
  bad_identifier.pte          modules_xnnpack.pte with its ET12 identifier overwritten

Usage: /work/venv/bin/python scripts/make_etrecord_fixtures.py fixtures/etrecord
       python3 scripts/make_etrecord_fixtures.py damage fixtures/etrecord
Then:  python3 scripts/etrecord_truth.py fixtures/etrecord
"""
import json
import os
import sys
import traceback
import warnings

RUNS = 10
SEED = 20261201


def models():
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.fc = nn.Linear(d, d)

        def forward(self, x):
            return torch.flip(torch.relu(self.fc(x)), [1])

    class Model(nn.Module):
        """embed -> layers.0 -> layers.1 -> cumsum -> head -> head_norm.

        `head` is a substring of `head_norm`: the Inspector's find_total_for_module("head")
        also counts head_norm (ambiguous); `layers.0`, `embed`, `layers.1.fc` are not.
        """

        def __init__(self):
            super().__init__()
            self.embed = nn.Linear(16, 32)
            self.layers = nn.ModuleList([Block(32), Block(32)])
            self.head = nn.Linear(32, 8)
            self.head_norm = nn.LayerNorm(8)

        def forward(self, x):
            x = self.embed(x)
            for layer in self.layers:
                x = layer(x)
            x = torch.cumsum(x, 1)
            return self.head_norm(self.head(x))

    class Prefill(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(16, 32)

        def forward(self, x):
            return torch.cumsum(torch.relu(self.proj(x)), 1)

    class Decode(nn.Module):
        def __init__(self):
            super().__init__()
            self.step = Block(16)

        def forward(self, x):
            return torch.tanh(self.step(x))

    class Score(nn.Module):
        def __init__(self):
            super().__init__()
            self.out = nn.Linear(16, 4)

        def forward(self, x):
            return torch.softmax(self.out(x), dim=-1)

    return Model, Prefill, Decode, Score


def seed():
    import torch

    torch.manual_seed(SEED)


def lower(programs, xnnpack):
    from executorch.exir import to_edge_transform_and_lower

    partitioner = []
    if xnnpack:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        partitioner = [XnnpackPartitioner()]
    edge = to_edge_transform_and_lower(programs, partitioner=partitioner, generate_etrecord=True)
    return edge.to_executorch()


def write_program(et, out, stem, etrecord_name):
    with open(os.path.join(out, f"{stem}.pte"), "wb") as f:
        et.write_to_file(f)
    et.get_etrecord().save(os.path.join(out, etrecord_name))


def single(out, stem, xnnpack, etrecord_name):
    import torch

    Model, _, _, _ = models()
    seed()
    model = Model().eval()
    x = (torch.randn(2, 16),)
    et = lower(torch.export.export(model, x), xnnpack)
    write_program(et, out, stem, etrecord_name)
    from executorch.extension.pybindings import portable_lib as pl

    m = pl._load_for_executorch(os.path.join(out, f"{stem}.pte"), enable_etdump=True)
    for _ in range(RUNS):
        m.forward(x)
    etdp = os.path.join(out, f"{stem}.etdp")
    m.write_etdump_result_to_file(etdp)
    golden(out, stem, etrecord_name)


def golden(out, stem, etrecord_name):
    from executorch.devtools import Inspector

    etdp = os.path.join(out, f"{stem}.etdp")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        insp = Inspector(etdump_path=etdp, etrecord=os.path.join(out, etrecord_name))
    blocks = []
    keys = {}  # module hierarchy key -> path, over every event
    for b in insp.event_blocks:
        events = []
        for ev in b.events:
            pd_ = ev.perf_data
            hierarchy = {}
            for node, h in ev.module_hierarchy.items():
                hierarchy[node] = {k: list(v) for k, v in (h or {}).items()}
                for k, v in (h or {}).items():
                    keys[k] = v[0]
            events.append({
                "name": ev.name,
                "instruction_id": ev._instruction_id,
                "delegate_debug_identifier": ev.delegate_debug_identifier,
                "is_delegated_op": ev.is_delegated_op,
                "debug_handles": ev.debug_handles,
                "op_types": list(ev.op_types),
                "nodes": list(ev.stack_traces.keys()),
                "module_hierarchy": hierarchy,
                "num_samples": len(pd_.raw) if pd_ is not None else 0,
                "avg_ms": float(pd_.avg) if pd_ is not None else None,
                "median_ms": float(pd_.p50) if pd_ is not None else None,
            })
        blocks.append({"name": b.name, "events": events})
    # Every module path seen, with the Inspector's total and whether its substring match
    # takes in keys of modules that are neither it nor below it.
    paths = sorted(set(keys.values()))
    modules = []
    for p in paths:
        if p == "":
            continue
        hits = [k for k in keys if p in k]
        foreign = [keys[k] for k in hits if not (keys[k] == p or keys[k].startswith(p + "."))]
        modules.append({
            "path": p,
            "find_total_for_module": insp.find_total_for_module(p),
            "ambiguous": bool(foreign),
            "also_matches": sorted(set(foreign)),
        })
    doc = {
        "producer": "scripts/make_etrecord_fixtures.py, executorch 1.5.1, "
                    "Inspector(etdump_path, etrecord); times in ms",
        "etdump": os.path.basename(etdp),
        "etrecord": etrecord_name,
        "event_blocks": blocks,
        "modules": modules,
    }
    with open(os.path.join(out, f"{stem}.inspector.json"), "w") as f:
        json.dump(doc, f, indent=1)
    print(f"[golden] {stem}: {sum(len(b['events']) for b in blocks)} events, {len(modules)} modules")


def multi(out, stem, twin):
    import torch

    _, Prefill, Decode, Score = models()
    seed()
    x = torch.randn(2, 16)
    if twin:
        shared = Prefill().eval()
        mods = {"prefill": shared, "decode": shared, "score": Score().eval()}
    else:
        mods = {"prefill": Prefill().eval(), "decode": Decode().eval(), "score": Score().eval()}
    programs = {name: torch.export.export(m, (x,)) for name, m in mods.items()}
    et = lower(programs, xnnpack=True)
    write_program(et, out, stem, f"{stem}.etrecord")
    from executorch.extension.pybindings import portable_lib as pl

    m = pl._load_for_executorch(os.path.join(out, f"{stem}.pte"), enable_etdump=True)
    order = []
    for i in range(RUNS):
        for name in ("prefill", "decode", "decode", "score"):
            if name == "score" and i % 2:
                continue
            m.run_method(name, (x,))
            order.append(name)
    etdp = os.path.join(out, f"{stem}.etdp")
    m.write_etdump_result_to_file(etdp)
    # The Inspector reads only a method called `forward`.
    from executorch.devtools import Inspector

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Inspector(etdump_path=etdp, etrecord=os.path.join(out, f"{stem}.etrecord"))
        inspector = "read it"
    except Exception as e:  # noqa: BLE001 - recorded as the fact it is
        inspector = f"{type(e).__name__}: {e}"
        traceback.print_exc(limit=1)
    with open(os.path.join(out, f"{stem}.run.json"), "w") as f:
        json.dump({"producer": "scripts/make_etrecord_fixtures.py, executorch 1.5.1",
                   "run_order": order, "inspector_with_etrecord": inspector}, f, indent=1)
    print(f"[multi] {stem}: {len(order)} runs; Inspector: {inspector}")


def rewrite(src, dst, change, compression=None):
    """Copy zip `src` to `dst`, entry by entry, through `change(name, data) -> data|None`."""
    import zipfile

    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(
        dst, "w", compression=compression or zipfile.ZIP_STORED
    ) as zout:
        for info in zin.infolist():
            data = change(info.filename, zin.read(info.filename))
            if data is not None:
                zout.writestr(info.filename, data)


def damage(out):
    import zipfile

    j = lambda *p: os.path.join(out, *p)  # noqa: E731
    rec = j("modules_xnnpack.etrecord")
    data = open(rec, "rb").read()
    open(j("bad_truncated.etrecord"), "wb").write(data[: len(data) // 2])
    rewrite(rec, j("bad_deflated.etrecord"), lambda n, d: d, compression=zipfile.ZIP_DEFLATED)
    rewrite(rec, j("bad_json.etrecord"), lambda n, d: b"{not json" if n == "debug_handle_map" else d)
    rewrite(rec, j("bad_program_json.etrecord"),
            lambda n, d: d[: len(d) // 2] if n == "edge_dialect_exported_program/forward" else d)
    rewrite(j("three_method.etrecord"), j("bad_missing_method.etrecord"),
            lambda n, d: None if n == "edge_dialect_exported_program/decode" else d)

    def handle(n, d):
        if n != "debug_handle_map":
            return d
        m = json.loads(d)
        m["forward"]["4"] = 99
        return json.dumps(m).encode()

    rewrite(rec, j("bad_handle.etrecord"), handle)

    # The layout of older ETRecords: one program entry without the method, and a
    # debug_handle_map / delegate_map not keyed by method.
    def old(n, d):
        if n.startswith("edge_dialect_exported_program/"):
            return None
        if n in ("debug_handle_map", "delegate_map"):
            return json.dumps(json.loads(d)["forward"]).encode()
        return d

    with zipfile.ZipFile(rec) as z:
        program = z.read("edge_dialect_exported_program/forward")
    rewrite(rec, j("old_layout.etrecord"), old)
    with zipfile.ZipFile(j("old_layout.etrecord"), "a") as z:
        z.writestr("edge_dialect_exported_program", program)
    pte = open(j("modules_xnnpack.pte"), "rb").read()
    open(j("bad_truncated.pte"), "wb").write(pte[: len(pte) // 2])
    open(j("bad_identifier.pte"), "wb").write(pte[:4] + b"XX12" + pte[8:])
    print("[damage] done")


def main(out):
    os.makedirs(out, exist_ok=True)
    single(out, "modules_xnnpack", True, "modules_xnnpack.etrecord")
    single(out, "modules_portable", False, "modules_portable.etrecord.bin")
    multi(out, "three_method", twin=False)
    multi(out, "twin_method", twin=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "damage":
        damage(sys.argv[2] if len(sys.argv) > 2 else "fixtures/etrecord")
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else "fixtures/etrecord")
        damage(sys.argv[1] if len(sys.argv) > 1 else "fixtures/etrecord")
