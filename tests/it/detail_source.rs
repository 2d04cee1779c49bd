//! The explorer's view model carries each row's source (from the ETRecord) to its tree
//! node: the detail pane's module chain and source line. The sources themselves are
//! checked against the Inspector in `tests/it/etrecord_source.rs`; here, that the explorer
//! shows the row's own source on the right node and none where the dump has none.

use crate::common;

use cpuprof_tui::app::{ExplorerData, NodeKind};

#[test]
fn delegate_and_operator_nodes_carry_their_row_source() {
    for stem in ["modules_xnnpack", "modules_portable"] {
        let p = common::load(&format!("etrecord/{stem}.etdp"), None, 0);
        let d = ExplorerData::from_profile(&p);
        let mut seen = 0;
        for del in &p.delegates {
            let name = format!("delegate #{}", del.instruction_id);
            let n = d.nodes.iter().position(|n| n.name == name).unwrap();
            assert_eq!(d.sources.get(&n), del.source.as_ref(), "{stem}: {name}");
            seen += usize::from(del.source.is_some());
            for op in &del.operators {
                let k = d.nodes[n]
                    .children
                    .iter()
                    .copied()
                    .find(|&c| d.nodes[c].name == op.name && d.nodes[c].kind == NodeKind::Operator)
                    .unwrap();
                assert_eq!(d.sources.get(&k), op.source.as_ref(), "{stem}: {}", op.name);
                seen += usize::from(op.source.is_some());
            }
        }
        for o in &p.other_operators {
            let n = d
                .nodes
                .iter()
                .position(|n| n.name == o.name && n.info == format!("instr {}", o.instruction_id))
                .unwrap();
            assert_eq!(d.sources.get(&n), o.source.as_ref(), "{stem}: {}", o.name);
            seen += usize::from(o.source.is_some());
        }
        assert!(
            seen > 0,
            "{stem}: the fixture has an ETRecord: some row has a source"
        );
    }
}
