//! The flame graph draws the folded export's frames: on real dumps, CpuBackend truth
//! cases and a torch trace, the cell spans of the flame view's layout (weighting: sum over
//! kept runs, the folded values' weighting) equal the spans computed here, independently,
//! from the output of `cpuprof-tui export --format folded`: a stack's time is the sum of
//! the values of the stacks it begins, and the layout rule (`views::flame::layout`: children
//! widest first, ties by name, cells `floor(offset * width / total)`, children narrower
//! than a cell merged into one span per parent) is applied to that trie.

use std::collections::BTreeMap;
use std::process::Command;
use std::sync::atomic::AtomicBool;

use cpuprof_tui::profile::ProfileRequest;
use cpuprof_tui::views::flame::layout::{layout, SpanOf};
use cpuprof_tui::views::flame::model::FlameTree;
use cpuprof_tui::worker::load_explorer_data;

#[derive(Default, Debug)]
struct Trie {
    value: u64,
    children: BTreeMap<String, Trie>,
}

fn folded(args: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_cpuprof-tui"))
        .arg("export")
        .args(args)
        .args(["--format", "folded"])
        .output()
        .expect("binary runs");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// Every stack's inclusive time: its own value plus those of the stacks it begins.
fn trie(text: &str) -> Trie {
    let mut root = Trie::default();
    for line in text.lines() {
        let (stack, v) = line.rsplit_once(' ').unwrap();
        let v: u64 = v.parse().unwrap();
        root.value += v;
        let mut at = &mut root;
        for frame in stack.split(';') {
            at = at.children.entry(frame.to_string()).or_default();
            at.value += v;
        }
    }
    root
}

type Spans = BTreeMap<(bool, String), (usize, u16, u16, u32)>;

/// The layout rule on the trie: (merged?, path) -> (row, x0, x1, frames).
/// `(width, total)`: cells of the row and the time they stand for.
fn expected(
    node: &Trie,
    path: &str,
    (offset, value, row): (u64, u64, usize),
    (width, total): (u16, u64),
    out: &mut Spans,
) {
    let mut kids: Vec<(&String, &Trie)> = node.children.iter().collect();
    kids.sort_by(|a, b| b.1.value.cmp(&a.1.value).then_with(|| a.0.cmp(b.0)));
    let cell = |at: u64| ((at as u128 * width as u128) / total as u128) as u16;
    let (mut at, end) = (offset, offset + value);
    let mut merged: Option<(u64, u64, u32)> = None;
    for (label, child) in kids {
        let v = child.value.min(end - at);
        if v == 0 {
            break;
        }
        if let Some(m) = merged.as_mut() {
            m.1 += v;
            m.2 += 1;
        } else if (v as u128) * (width as u128) < total as u128 {
            merged = Some((at, v, 1));
        } else {
            let p = if path.is_empty() {
                label.clone()
            } else {
                format!("{path};{label}")
            };
            out.insert((false, p.clone()), (row + 1, cell(at), cell(at + v), 1));
            expected(child, &p, (at, v, row + 1), (width, total), out);
        }
        at += v;
    }
    if let Some((from, v, n)) = merged {
        out.insert(
            (true, path.to_string()),
            (row + 1, cell(from), cell(from + v), n),
        );
    }
}

/// The flame view's spans, keyed the same way (frame names as the folded export
/// writes them: `;` is `:`). `skip_root`: the graph's root has no folded frame (a
/// trace's one thread).
fn drawn(tree: &FlameTree, width: u16, skip_root: bool) -> Spans {
    let l = layout(tree, 1, 0, width, 10_000);
    let name = |f: u32| {
        let p = tree.path(f);
        let start = usize::from(skip_root);
        p[start..]
            .iter()
            .map(|&x| tree.frame(x).label.replace(';', ":"))
            .collect::<Vec<_>>()
            .join(";")
    };
    let mut out = Spans::new();
    for (r, row) in l.rows.iter().enumerate().skip(1) {
        for s in row {
            let key = match s.of {
                SpanOf::Frame(f) => (false, name(f)),
                SpanOf::Merged(p) => (
                    true,
                    if skip_root && p == 0 {
                        String::new()
                    } else {
                        name(p)
                    },
                ),
            };
            // Row r of both: the trie's root is the graph's root frame.
            let row_no = r;
            assert!(
                out.insert(key.clone(), (row_no, s.x0, s.x1, s.count))
                    .is_none(),
                "two spans {key:?}"
            );
        }
    }
    out
}

fn check_dump(dump: &str, warmup: usize) {
    let path = format!("fixtures/{dump}");
    let request = ProfileRequest::new(path.clone().into(), None, warmup);
    let data = load_explorer_data(&request, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    let tree = FlameTree::from_explorer(&data);
    let text = folded(&[&path, "--warmup", &warmup.to_string()]);
    let t = trie(&text);
    // One method: the folded stacks all start with Method::execute, the graph's root.
    assert_eq!(t.children.len(), 1, "{dump}");
    let (root_name, root) = t.children.iter().next().unwrap();
    assert_eq!(tree.frame(0).label, *root_name, "{dump}");
    assert_eq!(tree.frame(0).values[1], root.value, "{dump}: root time");
    for width in [80u16, 157, 230] {
        let mut want = Spans::new();
        want.insert((false, root_name.clone()), (0, 0, width, 1));
        expected(
            root,
            root_name,
            (0, root.value, 0),
            (width, root.value),
            &mut want,
        );
        let mut got = drawn(&tree, width, false);
        got.insert((false, root_name.clone()), (0, 0, width, 1));
        assert!(want.len() > 2, "{dump}: a graph worth checking");
        assert_eq!(got, want, "{dump} at {width} cells");
    }
}

#[test]
fn dump_spans_are_the_folded_exports() {
    for dump in [
        "real/mlp_xnnpack.etdp",
        "real/cnn_portable.etdp",
        "real/multi_delegate.etdp",
        "real/mlp_portable_debugbuf.etdp",
    ] {
        check_dump(dump, 0);
    }
}

#[test]
fn cpu_backend_spans_are_the_folded_exports() {
    // Plan steps with their operators; warm-up runs as the truth files give them.
    for (case, warmup) in [
        ("cpu/wide_browse.etdp", 5),
        ("cpu/mlp_basic.etdp", 3),
        ("cpu/cnn2_basic.etdp", 3),
    ] {
        check_dump(case, warmup);
    }
}

/// Two methods: the folded stacks start with the method, then `Method::execute`; the
/// graph's `all methods` root is the whole.
#[test]
fn two_method_spans_are_the_folded_exports() {
    let path = "fixtures/real/two_method.etdp";
    let request = ProfileRequest::new(path.into(), None, 0);
    let data = load_explorer_data(&request, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    let tree = FlameTree::from_explorer(&data);
    let t = trie(&folded(&[path, "--warmup", "0"]));
    assert_eq!(t.children.len(), 2);
    assert_eq!(tree.frame(0).label, "all methods");
    assert_eq!(tree.frame(0).values[1], t.value);
    for width in [80u16, 120, 230] {
        let mut want = Spans::new();
        expected(&t, "", (0, t.value, 0), (width, t.value), &mut want);
        let got = drawn(&tree, width, true);
        assert!(want.len() > 5);
        assert_eq!(got, want, "at {width} cells");
    }
}

#[test]
fn trace_spans_are_the_folded_exports() {
    let path = "fixtures/torch/cnn_infer.json";
    let request = ProfileRequest::new(path.into(), None, 0);
    let data = load_explorer_data(&request, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    let tree = FlameTree::from_explorer(&data);
    let t = trie(&folded(&[path]));
    // One thread: the folded stacks start at the top-level calls, the graph's at its thread.
    assert!(tree.frame(0).label.starts_with("thread "));
    assert_eq!(tree.frame(0).values[1], t.value);
    for width in [80u16, 120, 230] {
        let mut want = Spans::new();
        expected(&t, "", (0, t.value, 0), (width, t.value), &mut want);
        let got = drawn(&tree, width, true);
        assert!(want.len() > 5);
        assert_eq!(got, want, "at {width} cells");
    }
}

/// Every row of the profile is shown by exactly one tree node, of the same name where the
/// tree names it alike (the flame graph's costs and the modules view read a node's facts
/// from its row, not from its display text): on a plan dump with its log, an XNNPACK
/// dump and a dump of three methods with portable kernels.
#[test]
fn every_profile_row_has_its_tree_node() {
    use cpuprof_tui::app::data::NodeKind;
    let cases: [(&str, Option<&str>); 3] = [
        (
            "fixtures/cpu/cnn2_basic.etdp",
            Some("fixtures/cpu/cnn2_basic.log"),
        ),
        ("fixtures/real/mlp_xnnpack.etdp", None),
        ("fixtures/etrecord/three_method.etdp", None),
    ];
    for (dump, log) in cases {
        let path = format!("{}/{dump}", env!("CARGO_MANIFEST_DIR"));
        let log = log.map(|l| format!("{}/{l}", env!("CARGO_MANIFEST_DIR")).into());
        let request = ProfileRequest::new(path.into(), log, 0);
        let data = load_explorer_data(&request, &mut |_| {}, &AtomicBool::new(false)).unwrap();
        let rows = data.rows.as_ref().expect("a dump has rows");
        let mut shown = vec![0usize; rows.rows.len()];
        let roots: Vec<&cpuprof_tui::app::data::TreeNode> =
            data.roots.iter().map(|&r| &data.nodes[r]).collect();
        let outside = |n: &cpuprof_tui::app::data::TreeNode| {
            n.parent.is_none() && !roots.iter().any(|r| std::ptr::eq(*r, n))
        };
        for n in &data.nodes {
            match n.row {
                Some(r) => {
                    shown[r] += 1;
                    let row = &rows.rows[r];
                    if matches!(n.kind, NodeKind::Operator | NodeKind::Step) {
                        assert_eq!(row.name, n.name, "{dump}: node and row differ");
                    }
                    assert_eq!(row.instruction_id, n.instruction.or(row.instruction_id));
                }
                // Only the synthesized self-time rows and the by-type groups' nodes
                // (outside the tree: no parent, no root) have no row.
                None => assert!(
                    n.kind == NodeKind::Overhead || outside(n),
                    "{dump}: node {:?} ({:?}) has no row",
                    n.name,
                    n.kind
                ),
            }
        }
        assert!(
            shown.iter().all(|&c| c == 1),
            "{dump}: rows shown by no node or several: {:?}",
            shown
                .iter()
                .enumerate()
                .filter(|(_, &c)| c != 1)
                .map(|(i, _)| &rows.rows[i].name)
                .collect::<Vec<_>>()
        );
        let overhead = data
            .nodes
            .iter()
            .filter(|n| n.name == "(overhead)" || n.name == "(remainder)")
            .count();
        assert_eq!(
            overhead,
            data.nodes
                .iter()
                .filter(|n| n.kind == NodeKind::Overhead)
                .count()
        );
    }
}

/// The sandwich of an op name adds up what PyTorch's own aggregate says: on the real
/// inference trace, for every op name of `key_averages()` (made with torch.profiler, see
/// fixtures/torch/README.md), the sandwich's total is `cpu_time_total_us` and its self
/// time `self_cpu_time_total_us`, within the trace's rounding (0.05 µs a call). Left
/// out: `aten::div_`, whose inner call of the same name PyTorch folds into the outer one.
#[test]
fn sandwich_totals_equal_key_averages() {
    let path = "fixtures/torch/cnn_infer.json";
    let truth: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("fixtures/torch/cnn_infer.key_averages.json").unwrap(),
    )
    .unwrap();
    let request = ProfileRequest::new(path.into(), None, 0);
    let data = load_explorer_data(&request, &mut |_| {}, &AtomicBool::new(false)).unwrap();
    let tree = FlameTree::from_explorer(&data);
    let mut checked = 0;
    for k in truth.as_array().unwrap() {
        let name = k["name"].as_str().unwrap();
        if name == "aten::div_" {
            continue;
        }
        let calls = k["count"].as_f64().unwrap();
        let s = tree
            .sandwich(name)
            .unwrap_or_else(|| panic!("{name}: no frame"));
        let tolerance = 50.0 * calls + 1.0;
        for (what, got, us) in [
            ("total", s.total[0], &k["cpu_time_total_us"]),
            ("self", s.self_time[0], &k["self_cpu_time_total_us"]),
        ] {
            let want = us.as_f64().unwrap() * 1e3;
            assert!(
                (got as f64 - want).abs() <= tolerance,
                "{name} {what}: {got} ns, key_averages {want} ns"
            );
        }
        // The callers' roots carry the name's whole time, split over its callers.
        let callers: u64 = s.callers.frames[0]
            .children
            .iter()
            .map(|&c| s.callers.frames[c as usize].values[0])
            .sum();
        assert!(callers == s.total[0] || s.callers.frames[0].children.is_empty());
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} names checked");
}
