//! The fleet view (`fleet PATH...` on a terminal, `cpuprof-tui DIR`): what it shows of
//! `fixtures/fleet/` against the fleets' truth file (the injected outlier device, the
//! regression from one commit on), Enter opening a profile in the explorer over the
//! fleet, `d` comparing a profile with its group's median profile, Esc back, and
//! snapshots at the four sizes.

use std::sync::atomic::AtomicBool;

use clap::Parser;
use cpuprof_tui::app::{update, Action, AppState, Command, Effect, ViewKind};
use cpuprof_tui::cli::{Cli, Command as Cmd, FleetArgs};
use cpuprof_tui::compare::Verdict;
use cpuprof_tui::fleet::meta::KeyTemplate;
use cpuprof_tui::tui_fleet::load_fleet;
use cpuprof_tui::ui::{self, Theme};
use cpuprof_tui::views::fleet::state::{insert, FleetView};
use cpuprof_tui::worker::load_explorer_data;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::Value;

use crate::support::render;

const SIZES: [(u16, u16); 4] = [(80, 24), (120, 40), (160, 48), (230, 60)];
const KEY: &str = "{device}/{commit}/run-{n}.etdp";

fn truth() -> Value {
    let text = std::fs::read_to_string("fixtures/fleet/truth.json").unwrap();
    serde_json::from_str(&text).unwrap()
}

fn args(extra: &[&str]) -> FleetArgs {
    let mut argv = vec!["cpuprof-tui", "fleet"];
    argv.extend_from_slice(extra);
    match Cli::try_parse_from(argv).unwrap().command {
        Some(Cmd::Fleet(a)) => a,
        other => panic!("{other:?}"),
    }
}

/// The fleet view of `extra` (paths relative to the crate root), loaded.
fn opened(extra: &[&str], (w, h): (u16, u16)) -> AppState {
    let a = args(extra);
    let key = a.key.as_deref().map(|k| KeyTemplate::parse(k).unwrap());
    let view = FleetView::loading(
        a.paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", "),
        a.warmup,
        a.no_log,
    );
    let mut s = AppState::for_fleet(view, w, h);
    // Before the fleet arrives: the loading message.
    assert!(screen(&s).contains("Loading the fleet"), "{}", screen(&s));
    update(&mut s, Action::FleetLoaded(load_fleet(&a, key)));
    s
}

fn key(s: &mut AppState, code: KeyCode) -> Vec<Effect> {
    update(s, Action::Key(KeyEvent::new(code, KeyModifiers::NONE)))
}

fn keys(s: &mut AppState, text: &str) {
    for c in text.chars() {
        key(s, KeyCode::Char(c));
    }
}

fn screen(s: &AppState) -> String {
    render::frame_text(s.session.width, s.session.height, |f| {
        ui::draw(f, s, &Theme::plain())
    })
}

fn fleet(s: &AppState) -> &FleetView {
    s.views.fleet().expect("the fleet view")
}

/// Select the profile with this id (through the profiles filter, then cleared).
fn select_profile(s: &mut AppState, id: &str) {
    key(s, KeyCode::Home);
    for _ in 0..200 {
        let v = fleet(s);
        let i = v.selected_profile().unwrap();
        if v.fleet.as_ref().unwrap().profiles[i].id == id {
            return;
        }
        key(s, KeyCode::Down);
    }
    panic!("no profile {id}");
}

/// Filter the rows table to `name` (Tab to the rows, `/`, type, Enter).
fn filter_rows(s: &mut AppState, name: &str) {
    key(s, KeyCode::Tab);
    keys(s, "/");
    assert_eq!(s.mode(), ViewKind::Filter);
    for c in name.chars() {
        update(s, Action::Command(insert(c)));
    }
    key(s, KeyCode::Enter);
    let row = fleet(s).selected_row().expect("a row matches");
    assert_eq!(row.name, name);
}

#[test]
fn the_outlier_device_is_marked_as_the_truth_says() {
    let t = truth();
    let out = &t["devices"]["outlier"];
    let (id, row) = (out["id"].as_str().unwrap(), out["row"].as_str().unwrap());
    let mut s = opened(&["fixtures/fleet/devices", "--key", KEY], (160, 48));
    assert_eq!(
        fleet(&s).fleet.as_ref().unwrap().profiles.len(),
        t["devices"]["profiles"].as_u64().unwrap() as usize
    );
    filter_rows(&mut s, row);
    let r = fleet(&s).selected_row().unwrap().clone();
    let f = fleet(&s).fleet.as_ref().unwrap();
    let outliers: Vec<&str> = r
        .outliers
        .iter()
        .map(|o| f.profiles[o.profile].id.as_str())
        .collect();
    assert_eq!(outliers, [id]);
    let text = screen(&s);
    // The detail lists it, the profiles list marks it (and only it).
    assert!(text.contains(&format!("outliers: {id}")), "{text}");
    let marked: Vec<&str> = text.lines().filter(|l| l.starts_with("│! ")).collect();
    assert_eq!(marked.len(), 1, "{text}");
    assert!(marked[0].contains(id), "{text}");
    // The sidecar metadata are columns (dev07's soc).
    let soc = t["devices"]["sidecars"][id]["soc"].as_str().unwrap();
    assert!(marked[0].contains(soc), "{}", marked[0]);
    // The outlier's median is about `factor` times the fleet's (seeded noise: ±15 %).
    let factor = out["factor"].as_f64().unwrap();
    let ratio = r.outliers[0].median / r.median_of_medians;
    assert!((ratio - factor).abs() < 0.15 * factor, "{ratio}");
}

#[test]
fn the_change_from_the_truth_commit_is_marked_with_a_sparkline() {
    let t = truth();
    let ch = &t["commits"]["change"];
    let at = ch["at"].as_str().unwrap();
    let mut s = opened(
        &[
            "fixtures/fleet/commits",
            "--key",
            KEY,
            "--by",
            "device",
            "--order",
            "commit",
        ],
        (120, 40),
    );
    select_profile(&mut s, at);
    filter_rows(&mut s, ch["row"].as_str().unwrap());
    let v = fleet(&s);
    let f = v.fleet.as_ref().unwrap();
    let r = v.selected_row().unwrap();
    let c = r.change.as_ref().expect("the injected change is found");
    assert_eq!(f.profiles[c.at].id, at);
    let factor = ch["factor"].as_f64().unwrap();
    assert!(
        (c.after / c.before - factor).abs() < 0.1 * factor,
        "{}",
        c.after / c.before
    );
    let text = screen(&s);
    assert!(text.contains(&format!("from {at}")), "{text}");
    // One block per commit of device a: c1..c10.
    let spark = text
        .lines()
        .find(|l| l.contains("│commit "))
        .unwrap_or_else(|| panic!("{text}"));
    let blocks = spark.chars().filter(|c| ('▁'..='█').contains(c)).count();
    assert_eq!(blocks, 10, "{spark}");
    // Device b never changes: no change on its group's row.
    key(&mut s, KeyCode::Tab);
    select_profile(&mut s, "b/c7/run-1.etdp");
    let r = fleet(&s).selected_row().unwrap();
    assert!(r.change.is_none(), "{:?}", r.change);
}

#[test]
fn enter_opens_the_profile_in_the_explorer_and_esc_returns() {
    let mut s = opened(&["fixtures/fleet/devices", "--key", KEY], (120, 40));
    select_profile(&mut s, "dev03/c1/run-1.etdp");
    let effects = key(&mut s, KeyCode::Enter);
    assert_eq!(s.views.kinds(), [ViewKind::Fleet, ViewKind::Explorer]);
    let Some(Effect::Load {
        request,
        generation,
    }) = effects.first().cloned()
    else {
        panic!("{effects:?}")
    };
    // The usual load path, with the fleet's warm-up (the log's, as `fleet` loads).
    assert_eq!(
        request.etdump,
        std::path::Path::new("fixtures/fleet/devices/dev03/c1/run-1.etdp")
    );
    let result = load_explorer_data(&request, &mut |_| {}, &AtomicBool::new(false))
        .map(Box::new)
        .map_err(|e| e.to_string());
    update(&mut s, Action::Loaded { generation, result });
    let text = screen(&s);
    assert!(text.contains("run-1.etdp"), "{text}");
    assert!(text.contains("Method::execute"), "{text}");
    // The explorer's keys work over the fleet (Tab to the table and back, then Esc).
    key(&mut s, KeyCode::Tab);
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.views.kinds(), [ViewKind::Fleet, ViewKind::Explorer]);
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.views.kinds(), [ViewKind::Fleet]);
    // Another profile: the explorer shows the loading gauge, not the last profile.
    select_profile(&mut s, "dev04/c1/run-1.etdp");
    key(&mut s, KeyCode::Enter);
    assert!(s.session.data.is_none() && s.session.loading.is_some());
    assert!(screen(&s).contains("dev04/c1/run-1.etdp"), "{}", screen(&s));
    key(&mut s, KeyCode::Esc);
    // Help over the fleet lists the fleet's keys first; Esc closes it.
    keys(&mut s, "?");
    let text = screen(&s);
    assert!(
        text.contains("Fleet (fleet PATH...; a folder of dumps)"),
        "{text}"
    );
    assert!(
        text.contains("Profiles ("),
        "the fleet stays under the help: {text}"
    );
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.views.kinds(), [ViewKind::Fleet]);
    // At the base, Esc says how to quit; q quits.
    key(&mut s, KeyCode::Esc);
    assert!(s.session.notice.as_deref().unwrap().contains("q quits"));
    assert_eq!(key(&mut s, KeyCode::Char('q')), [Effect::Quit]);
}

#[test]
fn d_compares_with_the_median_profile_and_finds_the_injected_row() {
    let t = truth();
    let out = &t["devices"]["outlier"];
    let (id, row) = (out["id"].as_str().unwrap(), out["row"].as_str().unwrap());
    let mut s = opened(&["fixtures/fleet/devices", "--key", KEY], (120, 40));
    select_profile(&mut s, id);
    key(&mut s, KeyCode::Char('d'));
    assert_eq!(s.views.kinds(), [ViewKind::Fleet, ViewKind::Compare]);
    let c = s.compare().unwrap().comparison();
    assert_eq!(c.b.source, id);
    assert!(c.a.source.ends_with("(median profile)"), "{}", c.a.source);
    let injected = c.rows.iter().find(|r| r.name == row).unwrap();
    assert_eq!(injected.verdict, Verdict::Slower);
    let factor = out["factor"].as_f64().unwrap();
    let pct = injected.median_change_pct.unwrap();
    assert!((pct / 100.0 + 1.0 - factor).abs() < 0.15 * factor, "{pct}");
    // Nothing else changed but the rows holding it (its step, delegate, method).
    let holds = |p: &[String]| injected.path.starts_with(p);
    let others: Vec<&str> = c
        .rows
        .iter()
        .filter(|r| r.verdict.is_change() && !holds(&r.path))
        .map(|r| r.name.as_str())
        .collect();
    assert!(others.is_empty(), "{others:?}");
    key(&mut s, KeyCode::Esc);
    assert_eq!(s.views.kinds(), [ViewKind::Fleet]);
    // The median profile itself: nothing to compare it with, said in the footer.
    let f = fleet(&s).fleet.as_ref().unwrap();
    let m = cpuprof_tui::fleet::tree::median_profile(f, &f.groups[0]).unwrap();
    let mid = f.profiles[m].id.clone();
    select_profile(&mut s, &mid);
    key(&mut s, KeyCode::Char('d'));
    assert_eq!(s.views.kinds(), [ViewKind::Fleet]);
    assert!(s
        .session
        .notice
        .as_deref()
        .unwrap()
        .contains("median profile"));
}

#[test]
fn a_damaged_profile_is_a_row_with_its_escaped_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("f");
    std::fs::create_dir(&dir).unwrap();
    for n in ["a", "b"] {
        std::fs::copy(
            "fixtures/fleet/null/n01.etdp",
            dir.join(format!("{n}.etdp")),
        )
        .unwrap();
    }
    // A dump cut short, named with an escape sequence.
    let bytes = std::fs::read("fixtures/fleet/null/n02.etdp").unwrap();
    std::fs::write(dir.join("bad\x1b[31m.etdp"), &bytes[..bytes.len() / 3]).unwrap();
    let p = dir.display().to_string();
    let mut s = opened(&[&p], (120, 40));
    let text = screen(&s);
    assert!(!text.contains('\x1b'), "{text:?}");
    assert!(text.contains("bad\\x1b[31m.etdp"), "{text}");
    assert!(text.contains("✗ "), "{text}");
    assert!(text.contains("(1 failed)"), "{text}");
    select_profile(&mut s, "bad\x1b[31m.etdp");
    // Enter on it opens nothing and says why; its rows pane says it did not load.
    assert!(key(&mut s, KeyCode::Enter).is_empty());
    assert_eq!(s.views.kinds(), [ViewKind::Fleet]);
    assert!(screen(&s).contains("did not load"));
}

#[test]
fn snapshots_at_four_sizes() {
    for size in SIZES {
        let s = opened(&["fixtures/fleet/devices", "--key", KEY], size);
        insta::assert_snapshot!(format!("fleet_devices_{}x{}", size.0, size.1), screen(&s));
        let mut s = opened(
            &[
                "fixtures/fleet/commits",
                "--key",
                KEY,
                "--by",
                "device",
                "--order",
                "commit",
            ],
            size,
        );
        filter_rows(&mut s, "Fully Connected (NC, F32) GEMM #1");
        insta::assert_snapshot!(format!("fleet_commits_{}x{}", size.0, size.1), screen(&s));
    }
}

#[test]
fn every_key_of_the_fleet_table_is_in_its_help() {
    let help = cpuprof_tui::app::keymap::view_help(ViewKind::Fleet);
    for (k, _) in [
        ("Enter", ""),
        ("d", ""),
        ("/", ""),
        ("Esc", ""),
        ("q Ctrl-c", ""),
    ] {
        assert!(help.iter().any(|(keys, _)| keys == k), "{k}: {help:?}");
    }
    // A command the view does not take leaves it as it was.
    let mut s = opened(&["fixtures/fleet/null"], (80, 24));
    let before = fleet(&s).profile_cursor;
    update(&mut s, Action::Command(Command::ToggleTimeline));
    assert_eq!(fleet(&s).profile_cursor, before);
    assert_eq!(s.views.top_kind(), Some(ViewKind::Fleet));
}
