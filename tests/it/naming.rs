//! One name and one notation per thing (#22): a delegate is `delegate #N` (long) or `dN`
//! (short) on every screen, shapes read `[1,8,16,16] [8,3,3,8]` in the table and the
//! timeline alike, and a value every listed row shares (`shapes not recorded`, the one
//! step) is said once, in the table's title.

use crate::support::explorer::ExplorerOf;
use cpuprof_tui::app::Pane;
use cpuprof_tui::profile::ProfileRequest;
use ratatui::crossterm::event::KeyCode;

use crate::support::explorer;
use explorer::{key as press, opened_request as opened, screen, timeline};

fn no_other_delegate_notation(text: &str) {
    for bad in ["delegate @", "delegate d", "@ instruction", "instr 1 · op"] {
        assert!(!text.contains(bad), "`{bad}` on screen:\n{text}");
    }
}

/// mlp_noshapes_hours: recorded without shapes (truth `shapes_enabled: false`), its four
/// operators all in delegate #0's one step `XNNPACK/subgraph:linear+5`.
#[test]
fn shared_values_are_said_once_in_the_title() {
    for size in [(80, 24), (160, 48)] {
        let mut s = opened(
            ProfileRequest::new(
                "fixtures/cpu-faults/mlp_noshapes_hours.etdp".into(),
                Some("fixtures/cpu-faults/mlp_noshapes_hours.log".into()),
                0,
            ),
            size,
        );
        press(&mut s, KeyCode::Tab);
        assert_eq!(s.explorer().focus, Pane::Table);
        let text = screen(&s);
        let title = text
            .lines()
            .find(|l| l.contains("Operators"))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(title.contains("shapes not recorded"), "{text}");
        // Once in the table (the title), not on its rows (the detail pane, about one
        // operator, may say it of that one).
        let table: String = text
            .lines()
            .skip_while(|l| !l.contains("Operators"))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(table.matches("shapes not recorded").count(), 1, "{text}");
        if size.0 >= 160 {
            assert!(title.contains("step XNNPACK/subgraph:linear+5"), "{text}");
        }
        assert!(title.contains("delegate #0"), "{text}");
    }
}

/// The demo's screens (tree, table, detail, timeline)
/// name delegates one way; mlp_basic's timeline writes shapes as the table does.
#[test]
fn one_delegate_notation_and_one_shape_notation() {
    let mut s = opened(ProfileRequest::demo(None), (160, 48));
    no_other_delegate_notation(&screen(&s));
    press(&mut s, KeyCode::Tab);
    let text = screen(&s);
    no_other_delegate_notation(&text);
    assert!(text.contains("delegate #1"), "{text}");
    timeline(&mut s);
    let text = screen(&s);
    no_other_delegate_notation(&text);
    assert!(text.contains("delegate #1"), "{text}");

    let mut s = opened(
        ProfileRequest::new(
            "fixtures/cpu/mlp_basic.etdp".into(),
            Some("fixtures/cpu/mlp_basic.log".into()),
            3,
        ),
        (160, 48),
    );
    press(&mut s, KeyCode::Tab);
    // The table's first row: a GEMM with recorded shapes, written `[a,b] [c,d]`.
    let d = s.session.data.as_ref().unwrap();
    let op = &d.ops[s.selected_op().unwrap()];
    let inputs = op.input_shapes.clone();
    assert!(
        inputs.starts_with('[') && !inputs.contains("[["),
        "{inputs}"
    );
    timeline(&mut s);
    let text = screen(&s);
    assert!(
        text.contains(&format!("inputs {inputs}")),
        "{inputs}\n{text}"
    );
    assert!(!text.contains("[["), "{text}");
    no_other_delegate_notation(&text);
}
