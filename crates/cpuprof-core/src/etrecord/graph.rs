//! The JSON entries of an ETRecord: the edge program's nodes, `debug_handle_map` and
//! `delegate_map`, and the two metadata strings (`nn_module_stack`, `stack_trace`).

use std::collections::BTreeMap;

use std::borrow::Cow;
use std::collections::HashMap;

use super::json::{Kind, Number, Reader};
use super::{DelegateRecord, Node};

/// One `key,path,type` item of `nn_module_stack`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleFrame {
    /// The export key (`L__self__layers.0`).
    pub key: String,
    /// The module path (`layers.0`; empty for the root module).
    pub path: String,
    /// The module class (`torch.nn.modules.linear.Linear`).
    pub ty: String,
}

/// One frame of a stack trace: `File "path", line N, in function`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub file: String,
    pub line: u32,
    pub function: String,
}

impl Frame {
    /// `make.py:83 in forward` (the file's base name).
    pub fn short(&self) -> String {
        let base = self.file.rsplit(['/', '\\']).next().unwrap_or(&self.file);
        format!("{base}:{} in {}", self.line, self.function)
    }

    /// `path/to/make.py:83`, what an editor opens.
    pub fn file_line(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// The first `File "...", line N, in fn` of a stack trace (outermost first: the model's
/// own `forward`).
pub fn first_frame(trace: &str) -> Option<Frame> {
    let mut rest = trace;
    while let Some(at) = rest.find("File \"") {
        let after = &rest[at + 6..];
        let close = after.find('"')?;
        let file = &after[..close];
        let tail = &after[close + 1..];
        if let Some(t) = tail.strip_prefix(", line ") {
            let digits = t.bytes().take_while(u8::is_ascii_digit).count();
            if let (Ok(line), Some(f)) = (t[..digits].parse(), t[digits..].strip_prefix(", in ")) {
                let function: String = f.chars().take_while(|c| !c.is_whitespace()).collect();
                return Some(Frame {
                    file: file.to_string(),
                    line,
                    function,
                });
            }
        }
        rest = tail;
    }
    None
}

/// `nn_module_stack`: items joined by `;`, each `key,path,type`, split on commas outside
/// brackets (a key such as `L['self'].layers[0]` or a type with `[..]` may hold commas).
/// Items that are not three fields are left out.
pub fn split_module_stack(text: &str) -> Vec<ModuleFrame> {
    let mut out = Vec::new();
    for item in split_outside_brackets(text, ';') {
        let parts = split_outside_brackets(item, ',');
        if let [key, path, ty] = parts.as_slice() {
            out.push(ModuleFrame {
                key: key.to_string(),
                path: path.to_string(),
                ty: ty.to_string(),
            });
        }
    }
    out
}

fn split_outside_brackets(text: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut depth: usize = 0;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth = depth.saturating_sub(1),
            c if c == sep && depth == 0 => {
                parts.push(&text[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// Modules of the dialect ops, whose `__name__` keeps the namespace.
const DIALECT_PREFIXES: [&str; 2] = [
    "executorch.exir.dialects.edge.ops.",
    "executorch.exir.dialects.backend.ops.",
];
const TORCH_PREFIX: &str = "torch.ops.";

/// The operator name the Inspector lists: the `__name__` of the node's target, which the
/// serializer wrote after the target's module (`{module}.{__name__}`). Edge and backend
/// dialect ops keep their namespace (`aten.flip.default`,
/// `dim_order_ops._to_dim_order_copy.default`); a torch operator is `op.overload` in
/// module `torch.ops.NAMESPACE` (`torch.ops.aten.scalar_tensor.default` ->
/// `scalar_tensor.default`, `torch.ops.higher_order.cond` -> `cond`); a Python function is
/// its own name (`_operator.getitem` -> `getitem`).
pub fn op_type(target: &str) -> &str {
    if let Some(name) = DIALECT_PREFIXES.iter().find_map(|p| target.strip_prefix(p)) {
        return name;
    }
    if let Some(rest) = target.strip_prefix(TORCH_PREFIX) {
        return rest.split_once('.').map_or(rest, |(_namespace, name)| name);
    }
    target
        .rsplit_once('.')
        .map_or(target, |(_module, name)| name)
}

/// The nodes of an edge program (torch.export serde JSON): only `graph_module.graph.nodes`
/// is read, and of each node its name, target, first output's name and three metadata
/// keys; everything else (arguments, constants, unused metadata) is skipped unbuilt.
pub fn parse_nodes(text: &[u8]) -> Result<Vec<Node>, String> {
    let mut r = Reader::new(text);
    let mut nodes = None;
    r.object(|r, k| match &*k {
        "graph_module" => r.object(|r, k| match &*k {
            "graph" => r.object(|r, k| match &*k {
                "nodes" => {
                    let mut list = Vec::new();
                    r.array(|r, _| {
                        if let Some(n) = read_node(r)? {
                            list.push(n);
                        }
                        Ok(())
                    })?;
                    nodes = Some(list);
                    Ok(())
                }
                _ => r.skip(),
            }),
            _ => r.skip(),
        }),
        _ => r.skip(),
    })?;
    r.finish()?;
    nodes.ok_or_else(|| "no `graph_module.graph.nodes`".to_string())
}

/// One node; None for `_operator.getitem` (the Inspector leaves it out).
fn read_node(r: &mut Reader) -> Result<Option<Node>, String> {
    let mut name: Option<String> = None;
    let mut output: Option<String> = None;
    let mut target: Option<String> = None;
    let mut debug_handles = Vec::new();
    let mut stack_trace = None;
    let mut module_stack = None;
    let mut handle_error = None;
    r.object(|r, k| match &*k {
        "name" => {
            name = r.string_or_skip()?.map(Cow::into_owned);
            Ok(())
        }
        "target" => {
            target = Some(r.string()?.into_owned());
            Ok(())
        }
        "outputs" => {
            output = first_output_name(r)?;
            Ok(())
        }
        "metadata" => r.object(|r, k| match &*k {
            "debug_handle" => {
                let mut repeats = 0;
                // A key given twice: the last one holds, as a JSON object's last key does.
                debug_handles.clear();
                if let Err(e) = handles(r, &mut debug_handles, &mut repeats) {
                    handle_error = Some(e);
                }
                Ok(())
            }
            "stack_trace" => {
                stack_trace = r.string_or_skip()?.map(Cow::into_owned);
                Ok(())
            }
            "nn_module_stack" => {
                module_stack = r.string_or_skip()?.map(|s| split_module_stack(&s));
                Ok(())
            }
            _ => r.skip(),
        }),
        _ => r.skip(),
    })?;
    let target = target.ok_or_else(|| r.error("a node without `target`"))?;
    if target == "_operator.getitem" {
        return Ok(None);
    }
    let name = name.or(output).unwrap_or_default();
    if let Some(e) = handle_error {
        return Err(format!("node {name:?}: debug_handle {e}"));
    }
    Ok(Some(Node {
        name,
        target,
        debug_handles,
        stack_trace,
        module_stack: module_stack.unwrap_or_default(),
    }))
}

/// A node without `name` (older serde): the name of its first output
/// (`outputs[0].<kind>.name`).
fn first_output_name(r: &mut Reader) -> Result<Option<String>, String> {
    if r.kind() != Some(Kind::Array) {
        return r.skip().map(|_| None);
    }
    let mut out = None;
    r.array(|r, i| {
        if i != 0 || r.kind() != Some(Kind::Object) {
            return r.skip();
        }
        let mut first = true;
        r.object(|r, _| {
            if !std::mem::take(&mut first) || r.kind() != Some(Kind::Object) {
                return r.skip();
            }
            r.object(|r, k| {
                if k == "name" {
                    out = r.string_or_skip()?.map(Cow::into_owned);
                    Ok(())
                } else {
                    r.skip()
                }
            })
        })
    })?;
    Ok(out)
}

/// Past this many distinct handles in one list, they are looked up in a map.
const SMALL_LIST: usize = 16;

/// How often one handle is kept in one instruction's list. Real lists repeat a handle
/// (XNNPACK's: twice) and the Inspector keeps the repeats (its `debug_handles` and one
/// `op_types` entry each); past this, a repeat is counted, not kept, so a list of
/// millions of one handle costs memory by its distinct handles.
pub const MAX_REPEATS: usize = 4;

/// The whole of a list of handles past [`MAX_REPEATS`] repeats: each distinct handle with
/// how often the list gives it and the position (0-based) of its last time, in order of
/// first appearance. What the Inspector makes of the whole list (one `op_types` entry per
/// node per time a handle is listed) is made from it, without keeping the repeats.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FullCounts {
    pub handles: Vec<(u64, u64, u64)>,
}

/// Each distinct handle of a list with how often it came and where last, in order of
/// first appearance: looked up by a scan while there are few, by a map past that, and
/// not at all when a handle repeats the one before it (most repeats).
struct Tally {
    order: Vec<(u64, u64, u64)>,
    index: Option<HashMap<u64, usize>>,
    previous: Option<usize>,
    position: u64,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            order: Vec::new(),
            index: None,
            previous: None,
            position: 0,
        }
    }

    /// Counts `h` once more; returns how often it has come.
    fn add(&mut self, h: u64) -> u64 {
        let at = match self.previous.filter(|&p| self.order[p].0 == h) {
            Some(p) => p,
            None => {
                let found = match &self.index {
                    Some(map) => map.get(&h).copied(),
                    None => self.order.iter().position(|e| e.0 == h),
                };
                found.unwrap_or_else(|| {
                    self.order.push((h, 0, 0));
                    let at = self.order.len() - 1;
                    match &mut self.index {
                        Some(map) => {
                            map.insert(h, at);
                        }
                        None if self.order.len() > SMALL_LIST => {
                            let map = self.order.iter().enumerate().map(|(i, e)| (e.0, i));
                            self.index = Some(map.collect());
                        }
                        None => {}
                    }
                    at
                })
            }
        };
        self.previous = Some(at);
        let e = &mut self.order[at];
        e.1 += 1;
        e.2 = self.position;
        self.position += 1;
        e.1
    }
}

/// Handles as written (a number, a decimal string, or a list of either) read into `out`
/// (given empty), each at most [`MAX_REPEATS`] times: one more adds to `repeats` instead, and the
/// list's [`FullCounts`] are returned. A handle that is not one is an error after the whole
/// value is read (the reader stays in step).
fn handles(
    r: &mut Reader,
    out: &mut Vec<u64>,
    repeats: &mut u64,
) -> Result<Option<FullCounts>, String> {
    let mut bad: Option<String> = None;
    let mut tally = Tally::new();
    let mut dropped = false;
    let mut one = |r: &mut Reader, out: &mut Vec<u64>| -> Result<(), String> {
        let h = match r.kind() {
            Some(Kind::Number) => match r.number()? {
                Number::U(u) => Some(u),
                Number::I(i) => {
                    bad.get_or_insert_with(|| format!("{i} is not a handle"));
                    None
                }
                Number::F(f) => {
                    bad.get_or_insert_with(|| format!("{f} is not a handle"));
                    None
                }
            },
            Some(Kind::String) => {
                let s = r.string()?;
                match s.trim().parse() {
                    Ok(h) => Some(h),
                    Err(_) => {
                        bad.get_or_insert_with(|| format!("{s:?} is not a handle"));
                        None
                    }
                }
            }
            _ => {
                r.skip()?;
                bad.get_or_insert_with(|| "a value that is not a handle".to_string());
                None
            }
        };
        if let Some(h) = h {
            if tally.add(h) > MAX_REPEATS as u64 {
                *repeats += 1;
                dropped = true;
            } else {
                out.push(h);
            }
        }
        Ok(())
    };
    match r.kind() {
        Some(Kind::Array) => r.array(|r, _| one(r, out))?,
        Some(Kind::Null) => r.skip()?,
        _ => one(r, out)?,
    }
    match bad {
        Some(e) => Err(e),
        None => Ok(dropped.then_some(FullCounts {
            handles: tally.order,
        })),
    }
}

fn instruction_id(key: &str) -> Result<u32, String> {
    key.trim()
        .parse()
        .map_err(|_| format!("{key:?} is not an instruction id"))
}

/// One method's `debug_handle_map`: instruction id -> debug handles.
pub type HandleTable = BTreeMap<u32, Vec<u64>>;

/// One method of `debug_handle_map`: its table and how many handles were listed again
/// for the same instruction (counted once).
#[derive(Debug)]
pub struct HandleMethod {
    pub name: String,
    pub table: HandleTable,
    pub repeats: u64,
    /// The whole lists of the instructions whose repeats were left out of `table`.
    pub full: BTreeMap<u32, FullCounts>,
}

impl HandleMethod {
    /// Instruction `id`'s list, and its whole list when repeats were left out of it (a
    /// key given twice: the later one holds, as a JSON object's later key does).
    fn insert(&mut self, id: u32, list: Vec<u64>, full: Option<FullCounts>) {
        self.table.insert(id, list);
        match full {
            Some(f) => self.full.insert(id, f),
            None => self.full.remove(&id),
        };
    }
}

/// `debug_handle_map`: method -> instruction id -> handles, methods in file order. An
/// older file without methods is one method, `forward`.
pub fn parse_handle_map(text: &[u8]) -> Result<Vec<HandleMethod>, String> {
    let mut r = Reader::new(text);
    let mut methods: Vec<HandleMethod> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    // An older file: instruction ids at the top.
    let mut legacy = HandleMethod {
        name: "forward".to_string(),
        table: BTreeMap::new(),
        repeats: 0,
        full: BTreeMap::new(),
    };
    let mut legacy_keys = false;
    let mut err: Option<String> = None;
    r.object(|r, key| {
        if r.kind() == Some(Kind::Object) {
            let mut m = HandleMethod {
                name: key.into_owned(),
                table: BTreeMap::new(),
                repeats: 0,
                full: BTreeMap::new(),
            };
            r.object(|r, k| {
                let mut list = Vec::new();
                let read = handles(r, &mut list, &mut m.repeats);
                match (instruction_id(&k), read) {
                    (Ok(id), Ok(full)) => m.insert(id, list, full),
                    (Err(e), _) | (_, Err(e)) => {
                        err.get_or_insert_with(|| format!("method {:?}: {e}", m.name));
                    }
                }
                Ok(())
            })?;
            // A method named twice: the later one, as a JSON object's later key wins.
            match index.get(&m.name) {
                Some(&i) => methods[i] = m,
                None => {
                    index.insert(m.name.clone(), methods.len());
                    methods.push(m);
                }
            }
        } else {
            legacy_keys = true;
            let mut list = Vec::new();
            let read = handles(r, &mut list, &mut legacy.repeats);
            match (instruction_id(&key), read) {
                (Ok(id), Ok(full)) => legacy.insert(id, list, full),
                (Err(e), _) | (_, Err(e)) => {
                    err.get_or_insert(e);
                }
            }
        }
        Ok(())
    })?;
    r.finish()?;
    if let Some(e) = err {
        return Err(e);
    }
    match (legacy_keys, methods.is_empty()) {
        (_, true) => Ok(vec![legacy]),
        (false, false) => Ok(methods),
        (true, false) => Err("methods and instruction ids mixed at the top".into()),
    }
}

/// `delegate_map`: method -> instruction id -> `{name, delegate_map: {id: handles}}`.
pub fn parse_delegate_map(
    text: &[u8],
) -> Result<BTreeMap<String, BTreeMap<u32, DelegateRecord>>, String> {
    let mut r = Reader::new(text);
    let mut out = BTreeMap::new();
    if r.kind() == Some(Kind::Null) {
        // `null`: no delegates.
        r.skip()?;
        r.finish()?;
        return Ok(out);
    }
    if r.kind() != Some(Kind::Object) {
        return Err("not an object".into());
    }
    /// A top-level value: a method's table, or (older files) one delegate's entry.
    #[derive(Default)]
    struct Top {
        key: String,
        entry: Option<DelegateRecord>,
        table: Vec<(String, DelegateRecord)>,
        not_object: bool,
        entry_keys: bool,
    }
    let mut tops: Vec<Top> = Vec::new();
    let mut err: Option<String> = None;
    r.object(|r, key| {
        let mut top = Top {
            key: key.into_owned(),
            ..Top::default()
        };
        if r.kind() != Some(Kind::Object) {
            top.not_object = true;
            r.skip()?;
            tops.push(top);
            return Ok(());
        }
        let mut entry = DelegateRecord::default();
        r.object(|r, k| match &*k {
            "name" => {
                top.entry_keys = true;
                if let Some(s) = r.string_or_skip()? {
                    entry.backend = s.into_owned();
                }
                Ok(())
            }
            "delegate_map" => {
                top.entry_keys = true;
                read_delegate_handles(r, &top.key, &mut entry, &mut err)
            }
            _ => {
                let mut rec = DelegateRecord::default();
                if r.kind() == Some(Kind::Object) {
                    r.object(|r, k2| match &*k2 {
                        "name" => {
                            if let Some(s) = r.string_or_skip()? {
                                rec.backend = s.into_owned();
                            }
                            Ok(())
                        }
                        "delegate_map" => read_delegate_handles(r, &k, &mut rec, &mut err),
                        _ => r.skip(),
                    })?;
                } else {
                    r.skip()?;
                }
                top.table.push((k.into_owned(), rec));
                Ok(())
            }
        })?;
        top.entry = Some(entry);
        tops.push(top);
        Ok(())
    })?;
    r.finish()?;
    if let Some(e) = err {
        return Err(e);
    }
    let legacy = !tops.is_empty()
        && tops
            .iter()
            .all(|t| t.key.trim().parse::<u32>().is_ok() && !t.not_object && t.entry_keys);
    if legacy {
        let mut delegates = BTreeMap::new();
        for t in tops {
            delegates.insert(instruction_id(&t.key)?, t.entry.unwrap_or_default());
        }
        out.insert("forward".to_string(), delegates);
        return Ok(out);
    }
    for t in tops {
        if t.not_object {
            return Err(format!("method {:?}: not an object", t.key));
        }
        if t.entry_keys {
            // `name` or `delegate_map` where instruction ids belong.
            return Err(format!(
                "method {:?}: an entry where instruction ids belong",
                t.key
            ));
        }
        let mut delegates = BTreeMap::new();
        for (instr, rec) in t.table {
            delegates.insert(instruction_id(&instr)?, rec);
        }
        out.insert(t.key, delegates);
    }
    Ok(out)
}

/// An entry's `delegate_map`: delegate debug identifier -> handles.
fn read_delegate_handles(
    r: &mut Reader,
    instr: &str,
    rec: &mut DelegateRecord,
    err: &mut Option<String>,
) -> Result<(), String> {
    if r.kind() != Some(Kind::Object) {
        return r.skip();
    }
    r.object(|r, id| {
        let mut list = Vec::new();
        let mut repeats = 0;
        if let Err(e) = handles(r, &mut list, &mut repeats) {
            err.get_or_insert_with(|| format!("delegate {instr}: {e}"));
        }
        rec.handles_by_id.insert(id.into_owned(), list);
        Ok(())
    })
}
