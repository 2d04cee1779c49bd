//! The source layout DEVELOPERS.md promises. Two crates: `cpuprof-core`
//! (`crates/cpuprof-core`: input, readers, model, stats, compare, fleet, report) knows no
//! terminal (no ratatui, crossterm or notify in its manifest, no mention of them or of the
//! TUI crate in its source); the TUI crate (`src/`) sits on top. Inside each, no import
//! circle among the top modules and none of the forbidden edges named below; none among
//! the modules of `app/` and of `ui/`; no module in `app/` or `ui/` over 600 lines, and no
//! module anywhere over 600 lines of code (comments and the trailing test module left out;
//! generated code aside).
//!
//! Imports are read from the source text: every `crate::NAME` (and `use crate::{..}`),
//! and inside `app/` and `ui/` every `super::NAME` and `crate::app::NAME`. Comments and
//! the test modules at the end of a file (`#[cfg(test)] mod ..`) are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
const CORE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/cpuprof-core");
const CORE_SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/cpuprof-core/src");
const MAX_LINES: usize = 600;

pub(crate) fn rs_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(rs_files(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// The code of a file: no comment lines, no trailing test module.
pub(crate) fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("#[cfg(test)]\nmod ") {
        Some(i) => &text[..i],
        None => &text[..],
    };
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn ident_at(s: &str) -> Option<String> {
    let id: String = s
        .chars()
        .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
        .collect();
    (!id.is_empty()).then_some(id)
}

/// Names used after `prefix` (`crate::`, `super::`): `prefix name` and
/// `prefix {a, b::c}`.
fn names_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = code;
    while let Some(i) = rest.find(prefix) {
        let before = rest[..i].chars().last();
        rest = &rest[i + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue; // `foo_crate::`, not ours
        }
        if let Some(group) = rest.strip_prefix('{') {
            // The group's own closing brace (groups nest: `ui::{self, Theme}`).
            let mut level = 0;
            let end = group
                .char_indices()
                .find(|&(_, c)| {
                    match c {
                        '{' => level += 1,
                        '}' if level == 0 => return true,
                        '}' => level -= 1,
                        _ => {}
                    }
                    false
                })
                .map_or(group.len(), |(k, _)| k);
            // Top-level items of the group: names before `::` or `,` at depth 0.
            let mut depth = 0;
            let mut start = true;
            for (k, c) in group[..end].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    c if start && c.is_ascii_lowercase() && depth == 0 => {
                        if let Some(id) = ident_at(&group[k..]) {
                            out.insert(id);
                        }
                        start = false;
                    }
                    c if !c.is_whitespace() => start = false,
                    _ => {}
                }
            }
        } else if let Some(id) = ident_at(rest) {
            out.insert(id);
        }
    }
    out
}

/// The module of `path` one level under `root` (`root/x.rs` and `root/x/..` are `x`).
fn module_under(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let first = rel.components().next()?.as_os_str().to_str()?;
    Some(first.trim_end_matches(".rs").to_string())
}

type Graph = BTreeMap<String, BTreeSet<String>>;

/// A circle in `graph`, as the path that closes it, if there is one.
fn find_circle(graph: &Graph) -> Option<Vec<String>> {
    fn visit(
        n: &str,
        graph: &Graph,
        state: &mut BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in graph.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = path.iter().position(|p| p == m).unwrap();
                    let mut c = path[at..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(m, graph, state, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in graph.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

fn top_graph_of(src: &str) -> Graph {
    let src = Path::new(src);
    let mut g = Graph::new();
    for f in rs_files(src) {
        let Some(m) = module_under(src, &f) else {
            continue;
        };
        if m == "main" || m == "lib" {
            continue;
        }
        let uses = names_after(&code(&f), "crate::");
        let entry = g.entry(m.clone()).or_default();
        entry.extend(uses.into_iter().filter(|u| *u != m));
    }
    g
}

/// Imports among the modules of `src/<dir>/`.
fn sub_graph(dir: &str) -> Graph {
    let root = Path::new(SRC).join(dir);
    let mods: BTreeSet<String> = rs_files(&root)
        .iter()
        .filter_map(|f| module_under(&root, f))
        .filter(|m| m != "mod")
        .collect();
    let mut g = Graph::new();
    for f in rs_files(&root) {
        let Some(m) = module_under(&root, &f) else {
            continue;
        };
        if m == "mod" {
            continue;
        }
        let c = code(&f);
        let mut uses = names_after(&c, &format!("crate::{dir}::"));
        // `super::` in `dir/x.rs` is `dir` (in `dir/x/y.rs` it is `x`: not a sibling).
        if f.parent() == Some(root.as_path()) {
            uses.extend(names_after(&c, "super::"));
        }
        let entry = g.entry(m.clone()).or_default();
        entry.extend(uses.into_iter().filter(|u| *u != m && mods.contains(u)));
    }
    g
}

/// The edges of `g` that the layering forbids.
fn forbidden_edges(g: &Graph, rules: &[(&str, &str)]) -> Vec<String> {
    rules
        .iter()
        .filter(|(from, never)| g.get(*from).is_some_and(|s| s.contains(*never)))
        .map(|(from, never)| format!("{from} → {never}"))
        .collect()
}

#[test]
fn the_core_crate_knows_no_terminal() {
    let manifest = std::fs::read_to_string(Path::new(CORE).join("Cargo.toml")).unwrap();
    assert!(manifest.contains("flatbuffers"), "manifest read at all");
    let deps = manifest.split("[dependencies]").nth(1).unwrap_or("");
    for dep in [
        "ratatui",
        "crossterm",
        "notify",
        "cpuprof-tui",
        "color-eyre",
    ] {
        assert!(
            !deps.lines().any(|l| l.trim_start().starts_with(dep)),
            "crates/cpuprof-core depends on {dep}"
        );
    }
    let mut bad = Vec::new();
    for f in rs_files(Path::new(CORE_SRC)) {
        let c = code(&f);
        for name in ["ratatui::", "crossterm::", "notify::", "cpuprof_tui::"] {
            if c.contains(name) {
                bad.push(format!("{} uses {name}", f.display()));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
    // The TUI's own layers never reach into the core's place: no reader or report
    // module lives in the TUI crate.
    let tui = top_graph_of(SRC);
    for m in [
        "etdump", "trace", "report", "profile", "fleet", "compare", "input",
    ] {
        assert!(
            !Path::new(SRC).join(m).exists() && !Path::new(SRC).join(format!("{m}.rs")).exists(),
            "src/{m} belongs in crates/cpuprof-core"
        );
    }
    assert!(tui.contains_key("app") && tui.contains_key("ui"), "{tui:?}");
}

#[test]
fn no_import_circle_among_the_top_modules() {
    // The core: input → readers → model → stats/compare/fleet → report, one way.
    let g = top_graph_of(CORE_SRC);
    // The graph is read at all: the readers use the input, the report the profile.
    assert!(g["trace"].contains("input"), "{g:?}");
    assert!(g["report"].contains("profile"), "{g:?}");
    if let Some(c) = find_circle(&g) {
        panic!("import circle in the core: {}", c.join(" → "));
    }
    // `input` knows bytes only; readers know no outputs; options are values read by all.
    let core_rules = [
        ("input", "trace"),
        ("input", "etdump"),
        ("input", "profile"),
        ("input", "report"),
        ("etdump", "report"),
        ("etdump", "fleet"),
        ("etdump", "compare"),
        ("trace", "fleet"),
        ("trace", "compare"),
        ("trace", "report"),
        ("profile", "report"),
        ("profile", "fleet"),
        ("stats", "report"),
        ("options", "report"),
        ("options", "fleet"),
    ];
    let bad = forbidden_edges(&g, &core_rules);
    assert!(bad.is_empty(), "forbidden edges in the core: {bad:?}");

    // The TUI crate: the shell uses the views; the views never the shell. `app` holds both
    // the shell (state, update, the stack) and the vocabulary the views speak (commands,
    // steps, key bindings, the view model), so `app` and `views` import each other at
    // this level; `views_never_import_the_shell` checks the direction file by file.
    let g = top_graph_of(SRC);
    assert!(g["tui"].contains("app") && g["tui"].contains("ui"), "{g:?}");
    let mut without_views = g.clone();
    without_views.remove("views");
    for uses in without_views.values_mut() {
        uses.remove("views");
    }
    if let Some(c) = find_circle(&without_views) {
        panic!("import circle in the TUI crate: {}", c.join(" → "));
    }
    let tui_rules = [
        ("app", "ui"),
        ("app", "tui"),
        ("app", "source"),
        ("app", "watch"),
        ("app", "worker"),
        ("ui", "tui"),
        ("ui", "watch"),
        ("ui", "worker"),
        ("ui", "entry"),
        ("watch", "app"),
        ("watch", "ui"),
        ("worker", "ui"),
        ("source", "app"),
        ("source", "ui"),
        ("cli", "app"),
        ("cli", "ui"),
        ("views", "tui"),
        ("views", "watch"),
        ("views", "worker"),
        ("views", "entry"),
        ("views", "run"),
        ("views", "source"),
    ];
    let bad = forbidden_edges(&g, &tui_rules);
    assert!(bad.is_empty(), "forbidden edges in the TUI crate: {bad:?}");
    // The rule finder is not blind: an edge that exists is reported.
    assert_eq!(
        forbidden_edges(&g, &[("tui", "app")]),
        ["tui → app"],
        "the edge finder reads the graph"
    );
}

#[test]
fn no_import_circle_in_app_or_ui() {
    for dir in ["app", "ui"] {
        let g = sub_graph(dir);
        assert!(g.len() > 1, "{dir}: {g:?}");
        if let Some(c) = find_circle(&g) {
            panic!("import circle in {dir}/: {}", c.join(" → "));
        }
    }
    // Read right: the update uses watch mode and the steps views return, the stack never
    // the update.
    let g = sub_graph("app");
    assert!(g.len() > 5, "{g:?}");
    assert!(g["update"].contains("watch") && g["update"].contains("step"));
    assert!(!g["view"].contains("update"));
}

#[test]
fn the_circle_finder_finds_circles() {
    let mut g = Graph::new();
    let edge = |g: &mut Graph, a: &str, b: &str| {
        g.entry(a.into()).or_default().insert(b.into());
    };
    edge(&mut g, "a", "b");
    edge(&mut g, "b", "c");
    assert_eq!(find_circle(&g), None);
    edge(&mut g, "c", "a");
    assert_eq!(
        find_circle(&g),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    let names = names_after(
        "use crate::{app::x, ui::{self, Theme}, tui};\nlet y = crate::watch::z;\nfoo_crate::bar",
        "crate::",
    );
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        ["app", "tui", "ui", "watch"]
    );
}

#[test]
fn no_module_in_app_or_ui_over_600_lines() {
    let mut over = Vec::new();
    for dir in ["app", "ui"] {
        for f in rs_files(&Path::new(SRC).join(dir)) {
            let n = std::fs::read_to_string(&f).unwrap().lines().count();
            if n > MAX_LINES {
                over.push(format!("{}: {n} lines", f.display()));
            }
        }
    }
    assert!(over.is_empty(), "over {MAX_LINES} lines: {over:#?}");
}

#[test]
fn no_module_over_600_lines_of_code() {
    let mut over = Vec::new();
    for f in rs_files(Path::new(SRC))
        .into_iter()
        .chain(rs_files(Path::new(CORE_SRC)))
    {
        if f.components().any(|c| c.as_os_str() == "generated") {
            continue;
        }
        let n = code(&f).lines().count();
        if n > MAX_LINES {
            over.push(format!("{}: {n} lines of code", f.display()));
        }
    }
    assert!(over.is_empty(), "over {MAX_LINES} lines of code: {over:#?}");
}

/// A module lives where its name says: no `#[path]` anywhere, the crates' sources, the
/// testkit, the tests, benches and examples (a unit test module is a child module in the
/// directory of its parent; what tests and benches share is the dev-only
/// `cpuprof-testkit` crate).
#[test]
fn no_module_is_moved_by_a_path_attribute() {
    let this = Path::new(file!()).file_name().unwrap().to_owned();
    let moved: Vec<String> = rs_files(Path::new(SRC))
        .into_iter()
        .chain(rs_files(Path::new(CORE_SRC)))
        .chain(rs_files(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/crates/cpuprof-testkit/src"
        ))))
        .chain(rs_files(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests"
        ))))
        .chain(rs_files(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/benches"
        ))))
        .chain(rs_files(Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples"
        ))))
        .filter(|f| f.file_name() != Some(this.as_os_str()))
        .filter(|f| code(f).contains("#[path"))
        .map(|f| f.display().to_string())
        .collect();
    assert!(moved.is_empty(), "#[path] in {moved:#?}");
}

/// A snapshot must not depend on where the checkout lies (CI clones elsewhere): no
/// committed snapshot holds this checkout's absolute path, or a worktree's.
#[test]
fn no_snapshot_names_a_checkout_path() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut bad = Vec::new();
    for e in std::fs::read_dir(Path::new(root).join("tests/it/snapshots")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "snap") {
            let text = std::fs::read_to_string(&p).unwrap();
            if text.contains(root) || text.contains("/work/wt/") {
                bad.push(p.display().to_string());
            }
        }
    }
    assert!(bad.is_empty(), "snapshots naming a checkout path: {bad:#?}");
}

/// The files of `app/`, `ui/` and `views/<name>/` as one graph (`app::update`,
/// `views::flame::state`), from their `crate::` and `super::` paths.
fn file_graph() -> Graph {
    let src = Path::new(SRC);
    let mut files: BTreeMap<String, std::path::PathBuf> = BTreeMap::new();
    for top in ["app", "ui", "views"] {
        for f in rs_files(&src.join(top)) {
            let rel = f.strip_prefix(src).unwrap().with_extension("");
            let name = rel
                .components()
                .map(|c| c.as_os_str().to_str().unwrap().to_string())
                .collect::<Vec<_>>()
                .join("::");
            if !name.ends_with("::mod") {
                files.insert(name, f);
            }
        }
    }
    let mut g = Graph::new();
    for (name, f) in &files {
        let c = code(f);
        let parent = name.rsplit_once("::").map_or("", |(p, _)| p).to_string();
        let mut uses = BTreeSet::new();
        for (prefix, base) in [
            ("crate::app::", "app".to_string()),
            ("crate::ui::", "ui".to_string()),
            ("super::", parent.clone()),
        ] {
            for n in names_after(&c, prefix) {
                uses.insert(format!("{base}::{n}"));
            }
        }
        // `crate::views::v::file`: two names deep.
        let mut rest = c.as_str();
        while let Some(i) = rest.find("crate::views::") {
            rest = &rest[i + "crate::views::".len()..];
            let path: String = rest
                .chars()
                .take_while(|ch| ch.is_alphanumeric() || *ch == '_' || *ch == ':')
                .collect();
            let parts: Vec<&str> = path.split("::").filter(|p| !p.is_empty()).collect();
            if parts.len() >= 2 {
                uses.insert(format!("views::{}::{}", parts[0], parts[1]));
            }
        }
        let entry = g.entry(name.clone()).or_default();
        entry.extend(
            uses.into_iter()
                .filter(|u| u != name && files.contains_key(u)),
        );
    }
    g
}

#[test]
fn views_never_import_the_shell() {
    let g = file_graph();
    // Read at all: the update dispatches to the flame view, the flame view speaks commands.
    assert!(
        g["app::update"].iter().any(|u| u.starts_with("views::")),
        "{g:?}"
    );
    assert!(g["views::flame::state"].contains("app::command"), "{g:?}");
    if let Some(c) = find_circle(&g) {
        panic!(
            "import circle among app/, ui/ and views/: {}",
            c.join(" → ")
        );
    }
    // The shell: the state, the update, the stack, what the shell does with keys.
    let shell = ["app::state", "app::update", "app::view", "app::watch"];
    let mut bad = Vec::new();
    for (from, uses) in &g {
        if !from.starts_with("views::") {
            continue;
        }
        for u in uses {
            if shell.contains(&u.as_str()) {
                bad.push(format!("{from} → {u}"));
            }
            // A view's state and keys are pure: drawing is its `render`.
            let pure =
                from.ends_with("::state") || from.ends_with("::keys") || from.ends_with("::model");
            if pure && (u.starts_with("ui::") || u.ends_with("::render")) {
                bad.push(format!("{from} → {u}"));
            }
        }
    }
    // The app never draws: no app file imports a view's render.
    for (from, uses) in &g {
        if from.starts_with("app::") {
            bad.extend(
                uses.iter()
                    .filter(|u| u.ends_with("::render") || u.starts_with("ui::"))
                    .map(|u| format!("{from} → {u}")),
            );
        }
    }
    assert!(bad.is_empty(), "forbidden file edges: {bad:#?}");
}

/// The explorer is a view like the others (#46): its state lives in the stack, not in a
/// field of the shell's (`AppState` holds the session, the stack and `quit`); the shell
/// reaches it through the stack's accessor (`ViewStack::explorer_mut`) and calls its
/// methods, never naming its internals (its state's types, its panes' focus, its filter);
/// and the explorer's files never name the shell (they read the session through `Ctx`
/// and ask with `Step`s).
#[test]
fn the_explorer_is_a_view_in_the_stack() {
    let src = Path::new(SRC);
    let state = code(&src.join("app/state.rs"));
    let start = state
        .find("pub struct AppState {")
        .expect("app/state.rs declares AppState");
    let fields = &state[start..start + state[start..].find('}').unwrap()];
    assert!(
        fields.contains("session:") && fields.contains("views:"),
        "{fields}"
    );
    assert!(
        !fields.contains("explorer"),
        "AppState has an explorer field: {fields}"
    );
    // `view.rs` holds the accessor; every other file of the shell goes through it.
    let internals = [
        "views::explorer::state",
        "TreeState",
        "TableState",
        "Pane::",
        ".focus",
        "filter_editing",
        "detail_source",
    ];
    let mut bad = Vec::new();
    for f in rs_files(&src.join("app")) {
        if f.ends_with("app/view.rs") {
            continue;
        }
        let c = code(&f);
        for name in internals {
            // The name whole: `.focus` is the field, `.focus_runs()` a method.
            let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
            let whole = c
                .match_indices(name)
                .any(|(i, _)| !name.ends_with(ident) || !c[i + name.len()..].starts_with(ident));
            if whole {
                bad.push(format!("{} names {name}", f.display()));
            }
        }
    }
    let shell = [
        "AppState",
        "app::state",
        "app::update",
        "app::view",
        "app::watch",
    ];
    for f in rs_files(&src.join("views").join("explorer")) {
        let c = code(&f);
        for name in shell {
            if c.contains(name) {
                bad.push(format!("{} names {name}", f.display()));
            }
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
    // The checks read something: the shell finds the explorer in the stack.
    assert!(state.contains("views.explorer_mut()"));
    let g = file_graph();
    assert!(g["views::explorer::listing"].contains("views::explorer::state"));
    assert!(g["views::explorer::render"].contains("views::explorer::tree"));
}

/// Every view is a directory `views/<name>/` holding its state, its key table and its
/// drawing, and its `mod.rs` makes it the one interface the shell knows views by
/// (`impl Component for ..`), the explorer's as the others'.
#[test]
fn every_view_is_a_component_in_its_own_directory() {
    let views = Path::new(SRC).join("views");
    let mut names = BTreeSet::new();
    let mut bad = Vec::new();
    for e in std::fs::read_dir(&views).unwrap() {
        let dir = e.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let name = dir.file_name().unwrap().to_str().unwrap().to_string();
        for part in ["mod", "state", "keys", "render"] {
            if !dir.join(format!("{part}.rs")).is_file() {
                bad.push(format!("views/{name}/ has no {part}.rs"));
            }
        }
        if !code(&dir.join("mod.rs")).contains("impl Component for ") {
            bad.push(format!("views/{name}/mod.rs implements no Component"));
        }
        names.insert(name);
    }
    assert!(bad.is_empty(), "{bad:#?}");
    for v in [
        "explorer", "log", "help", "timeline", "compare", "flame", "modules", "fleet", "dialog",
    ] {
        assert!(names.contains(v), "no views/{v}/: {names:?}");
    }
    // The explorer's own state and key table are the view's, not the shell's.
    let g = file_graph();
    assert!(!g.contains_key("app::explorer_view"));
    assert!(g["app::key_tables"].contains("views::explorer::keys"));
}

/// The shell is a loop over the stack: `ui::draw` draws every view through
/// `Component::render` (it names no view's drawing), the terminal loop fits views through
/// `Component::fit` (it changes no view's state from drawing geometry), and `update`
/// quits in one place.
#[test]
fn the_shell_knows_views_by_their_interface() {
    let draw = code(&Path::new(SRC).join("ui/mod.rs"));
    assert!(
        draw.contains(".render(frame"),
        "ui::draw renders through the trait"
    );
    for v in [
        "compare", "dialog", "explorer", "flame", "fleet", "help", "log", "modules", "timeline",
    ] {
        assert!(
            !draw.contains(&format!("views::{v}")),
            "ui::draw names views::{v}"
        );
    }
    // No view is drawn from the shell's state: the explorer draws itself too.
    for name in ["draw_explorer", ".explorer", "ViewKind::"] {
        assert!(!draw.contains(name), "ui::draw names {name}");
    }
    let tui = code(&Path::new(SRC).join("tui.rs"));
    for geometry in ["scroll_to_fit", ".pages =", "list_height", "render::pages"] {
        assert!(!tui.contains(geometry), "tui.rs sets a view's {geometry}");
    }
    let update = code(&Path::new(SRC).join("app/update.rs"));
    let explorer = code(&Path::new(SRC).join("views/explorer/commands.rs"));
    assert_eq!(
        update.matches("Effect::Quit").count(),
        1,
        "quit in one place"
    );
    assert!(
        !explorer.contains("Effect::Quit"),
        "the explorer quits through the shell"
    );
}
