//! ETRecord reader: the uncompressed zip ExecuTorch writes at export
//! (`generate_etrecord=True`) -> typed methods, nodes, debug handles and delegate maps.
//!
//! Read: `edge_dialect_exported_program/<method>` (torch.export serde JSON; older files
//! have one `edge_dialect_exported_program` entry), `debug_handle_map` and
//! `delegate_map` (JSON keyed by method, then instruction id). The `torch.save` entries
//! (`*_state_dict`, `*_constants`, `*_example_inputs`, `reference_outputs`) are pickles:
//! never read. No statistics here; attaching nodes to rows is `crate::profile::source`.

mod graph;
mod json;
mod zip_entries;

use std::collections::{BTreeMap, HashMap};

#[cfg(test)]
pub(crate) use graph::parse_handle_map;
pub use graph::{first_frame, split_module_stack, Frame, FullCounts, ModuleFrame, MAX_REPEATS};

/// Most entries an ETRecord may have (a real one has about a dozen per method).
pub const MAX_ENTRIES: usize = 100_000;

/// Why an ETRecord cannot be read. Display is one line (the caller names the file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EtRecordError {
    #[error("not an ETRecord: {0}")]
    NotZip(String),
    #[error("not an ETRecord: no `{0}` entry")]
    MissingEntry(String),
    #[error("entry `{entry}` is not valid JSON of the expected shape: {detail}")]
    BadJson { entry: String, detail: String },
    #[error("entry `{entry}` cannot be read: {detail}")]
    BadEntry { entry: String, detail: String },
    #[error("{0} entries, more than the {MAX_ENTRIES} an ETRecord may have")]
    TooManyEntries(u64),
    #[error("no method of the ETRecord could be read ({0})")]
    NoMethod(String),
}

/// One node of a method's edge program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    /// The serde target, e.g. `executorch.exir.dialects.edge.ops.aten.flip.default`.
    pub target: String,
    /// The debug handles in the node's metadata (usually one).
    pub debug_handles: Vec<u64>,
    pub stack_trace: Option<String>,
    /// `nn_module_stack`, outermost first (the root has an empty path).
    pub module_stack: Vec<ModuleFrame>,
}

impl Node {
    /// The operator as the Inspector lists it in `op_types` (`aten.flip.default`).
    pub fn op_type(&self) -> &str {
        graph::op_type(&self.target)
    }

    /// The innermost module path (`layers.0.fc`; `""` for the root), if the node has a
    /// module stack.
    pub fn module_path(&self) -> Option<&str> {
        self.module_stack.last().map(|m| m.path.as_str())
    }

    /// The first frame of the stack trace: the model's own `forward`.
    pub fn frame(&self) -> Option<Frame> {
        self.stack_trace.as_deref().and_then(first_frame)
    }
}

/// A delegated instruction's entry of `delegate_map`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DelegateRecord {
    /// The backend (`XnnpackBackend`).
    pub backend: String,
    /// Debug handles per delegate debug identifier (XNNPACK leaves this empty).
    pub handles_by_id: BTreeMap<String, Vec<u64>>,
}

/// One method of the ETRecord.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MethodRecord {
    pub name: String,
    /// Nodes of the edge program in graph order (`_operator.getitem` left out, as the
    /// Inspector leaves it out).
    pub nodes: Vec<Node>,
    /// `debug_handle_map`: instruction id -> debug handles.
    pub instructions: BTreeMap<u32, Vec<u64>>,
    /// `delegate_map`: instruction id of a delegate call -> its entry.
    pub delegates: BTreeMap<u32, DelegateRecord>,
    /// The whole `debug_handle_map` list of an instruction that lists a handle more than
    /// [`graph::MAX_REPEATS`] times (its `instructions` list keeps that many).
    pub full: BTreeMap<u32, FullCounts>,
    /// Debug handle -> indices into `nodes`, in graph order.
    by_handle: HashMap<u64, Vec<usize>>,
}

impl MethodRecord {
    pub fn new(
        name: String,
        nodes: Vec<Node>,
        instructions: BTreeMap<u32, Vec<u64>>,
        delegates: BTreeMap<u32, DelegateRecord>,
    ) -> MethodRecord {
        let mut by_handle: HashMap<u64, Vec<usize>> = HashMap::new();
        for (i, n) in nodes.iter().enumerate() {
            for &h in &n.debug_handles {
                let list = by_handle.entry(h).or_default();
                if list.last() != Some(&i) {
                    list.push(i);
                }
            }
        }
        MethodRecord {
            name,
            nodes,
            instructions,
            delegates,
            full: BTreeMap::new(),
            by_handle,
        }
    }

    /// The nodes carrying debug handle `h`, in graph order.
    pub fn nodes_with_handle(&self, h: u64) -> impl Iterator<Item = &Node> {
        self.by_handle
            .get(&h)
            .into_iter()
            .flatten()
            .map(|&i| &self.nodes[i])
    }

    /// Whether some node carries handle `h`.
    pub fn has_handle(&self, h: u64) -> bool {
        self.by_handle.contains_key(&h)
    }
}

/// A decoded ETRecord.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EtRecord {
    pub methods: Vec<MethodRecord>,
    /// What was wrong with parts of the file that were left out (a method without its
    /// program, a handle no node carries, ...), one line each.
    pub warnings: Vec<String>,
}

impl EtRecord {
    pub fn method(&self, name: &str) -> Option<&MethodRecord> {
        self.methods.iter().find(|m| m.name == name)
    }
}

const PROGRAM_ENTRY: &str = "edge_dialect_exported_program";
const HANDLE_MAP: &str = "debug_handle_map";
const DELEGATE_MAP: &str = "delegate_map";

/// How many names a warning that counts them lists.
const NAMED: usize = 3;

/// `"a", "b", "c" and 5 more`: the first [`NAMED`] of `items`, quoted, and a count of the
/// rest.
fn a_few(items: &[String]) -> String {
    let named: Vec<String> = items.iter().take(NAMED).map(|s| format!("{s:?}")).collect();
    match items.len().saturating_sub(NAMED) {
        0 => named.join(", "),
        more => format!("{} and {more} more", named.join(", ")),
    }
}

/// Decode an ETRecord from its bytes (read once through [`crate::input`]).
pub fn parse(bytes: &[u8]) -> Result<EtRecord, EtRecordError> {
    let zip = zip_entries::Entries::open(bytes)?;
    let mut record = EtRecord::default();
    if !zip.duplicates().is_empty() {
        record.warnings.push(format!(
            "{} entr{} of the zip appear{} twice or more (duplicate: {}); the first of each is read",
            zip.duplicates().len(),
            if zip.duplicates().len() == 1 { "y" } else { "ies" },
            if zip.duplicates().len() == 1 { "s" } else { "" },
            a_few(zip.duplicates())
        ));
    }
    let handle_map = zip
        .read(HANDLE_MAP)?
        .ok_or_else(|| EtRecordError::MissingEntry(HANDLE_MAP.into()))?;
    let handle_map =
        graph::parse_handle_map(handle_map).map_err(|detail| EtRecordError::BadJson {
            entry: HANDLE_MAP.into(),
            detail,
        })?;
    let delegate_map = match zip.read(DELEGATE_MAP)? {
        Some(text) => graph::parse_delegate_map(text).map_err(|detail| EtRecordError::BadJson {
            entry: DELEGATE_MAP.into(),
            detail,
        })?,
        None => BTreeMap::new(),
    };
    let mut last_error = None;
    // Methods left out and why, folded into one warning each kind when there are many.
    let mut without_program: Vec<String> = Vec::new();
    let mut bad_program: Vec<String> = Vec::new();
    let mut unmapped: Vec<String> = Vec::new();
    let mut repeated: Vec<String> = Vec::new();
    // Older files: one program entry without the method, read and parsed at most once
    // however many methods fall back on it (None: not looked at yet).
    let mut single: Option<Option<Result<Vec<Node>, String>>> = None;
    for hm in handle_map {
        let method = hm.name;
        let entry = format!("{PROGRAM_ENTRY}/{method}");
        let (entry, parsed) = match zip.read(&entry)? {
            Some(t) => (entry, graph::parse_nodes(t)),
            None => {
                if single.is_none() {
                    single = Some(zip.read(PROGRAM_ENTRY)?.map(graph::parse_nodes));
                }
                match single.as_ref().and_then(Option::as_ref) {
                    Some(parsed) if method == "forward" || record.methods.is_empty() => {
                        (PROGRAM_ENTRY.to_string(), parsed.clone())
                    }
                    _ => {
                        without_program.push(method);
                        last_error = Some(EtRecordError::MissingEntry(entry));
                        continue;
                    }
                }
            }
        };
        let nodes = match parsed {
            Ok(n) => n,
            Err(detail) => {
                let e = EtRecordError::BadJson { entry, detail };
                bad_program.push(format!("method {method:?}: {e}; left out"));
                last_error = Some(e);
                continue;
            }
        };
        if hm.repeats > 0 {
            repeated.push(format!(
                "method {method:?}: {} debug handle(s) listed more than {} times for one instruction; the repeats past {} left out",
                hm.repeats,
                graph::MAX_REPEATS,
                graph::MAX_REPEATS
            ));
        }
        let delegates = delegate_map.get(&method).cloned().unwrap_or_default();
        let mut m = MethodRecord::new(method, nodes, hm.table, delegates);
        m.full = hm.full;
        let mut count = 0usize;
        let mut missing: Vec<String> = Vec::new();
        for (i, h) in m
            .instructions
            .iter()
            .flat_map(|(i, hs)| hs.iter().map(move |h| (i, h)))
            .filter(|(_, h)| !m.has_handle(**h))
        {
            count += 1;
            if missing.len() < 8 {
                missing.push(format!("{h} (instruction {i})"));
            }
        }
        if count > 0 {
            let more = count - missing.len();
            unmapped.push(format!(
                "method {:?}: {count} debug handle(s) map to no node of its program: {}{}",
                m.name,
                crate::escape::message_line(&missing.join(", ")),
                if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                }
            ));
        }
        record.methods.push(m);
    }
    if !without_program.is_empty() {
        record.warnings.push(if without_program.len() == 1 {
            format!(
                "method {:?} has no `{PROGRAM_ENTRY}/{}` entry; left out",
                without_program[0], without_program[0]
            )
        } else {
            format!(
                "{} methods have no `{PROGRAM_ENTRY}/<method>` entry ({}); left out",
                without_program.len(),
                a_few(&without_program)
            )
        });
    }
    for (kind, list) in [
        ("could not be read (left out)", bad_program),
        ("have debug handles that map to no node", unmapped),
        (
            "list a debug handle too often for one instruction",
            repeated,
        ),
    ] {
        record.warnings.extend(folded(list, kind));
    }
    if record.methods.is_empty() {
        return Err(match last_error {
            Some(e) => EtRecordError::NoMethod(e.to_string()),
            None => EtRecordError::NoMethod(format!("`{HANDLE_MAP}` names no method")),
        });
    }
    Ok(record)
}

/// Per-method warnings, each a line while there are few; past [`NAMED`], the first
/// [`NAMED`] and one line counting the rest.
fn folded(mut lines: Vec<String>, what: &str) -> Vec<String> {
    if lines.len() > NAMED + 1 {
        let more = lines.len() - NAMED;
        lines.truncate(NAMED);
        lines.push(format!("{more} more methods {what}"));
    }
    lines
}

#[cfg(test)]
mod tests;
