//! The JSON entries of an ETRecord: the edge program's nodes, `debug_handle_map` and
//! `delegate_map`, and the two metadata strings (`nn_module_stack`, `stack_trace`).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

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

#[derive(Deserialize)]
struct ExportedProgram {
    graph_module: GraphModule,
}

#[derive(Deserialize)]
struct GraphModule {
    graph: Graph,
}

#[derive(Deserialize)]
struct Graph {
    nodes: Vec<SerNode>,
}

#[derive(Deserialize)]
struct SerNode {
    #[serde(default)]
    name: Option<String>,
    target: String,
    #[serde(default)]
    outputs: Vec<Value>,
    #[serde(default)]
    metadata: BTreeMap<String, Value>,
}

/// The nodes of an edge program (torch.export serde JSON).
pub fn parse_nodes(text: &[u8]) -> Result<Vec<Node>, String> {
    let ep: ExportedProgram = serde_json::from_slice(text).map_err(|e| e.to_string())?;
    let mut nodes = Vec::with_capacity(ep.graph_module.graph.nodes.len());
    for n in ep.graph_module.graph.nodes {
        if n.target == "_operator.getitem" {
            continue;
        }
        let name = n.name.unwrap_or_else(|| output_name(&n.outputs));
        let text_of = |key: &str| match n.metadata.get(key) {
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        };
        let debug_handles = match n.metadata.get("debug_handle") {
            Some(v) => handles_of(v).map_err(|e| format!("node {name:?}: debug_handle {e}"))?,
            None => Vec::new(),
        };
        nodes.push(Node {
            module_stack: text_of("nn_module_stack")
                .map(|s| split_module_stack(&s))
                .unwrap_or_default(),
            stack_trace: text_of("stack_trace"),
            debug_handles,
            target: n.target,
            name,
        });
    }
    Ok(nodes)
}

/// A node without `name` (older serde): the name of its first output.
fn output_name(outputs: &[Value]) -> String {
    outputs
        .first()
        .and_then(|o| o.as_object())
        .and_then(|o| o.values().next())
        .and_then(|v| v.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// Handles as written: a number, a decimal string, or a list of either.
fn handles_of(v: &Value) -> Result<Vec<u64>, String> {
    let one = |v: &Value| -> Result<u64, String> {
        match v {
            Value::Number(n) => n.as_u64().ok_or_else(|| format!("{n} is not a handle")),
            Value::String(s) => s
                .trim()
                .parse()
                .map_err(|_| format!("{s:?} is not a handle")),
            other => Err(format!("{other} is not a handle")),
        }
    };
    match v {
        Value::Array(items) => items.iter().map(one).collect(),
        Value::Null => Ok(Vec::new()),
        other => one(other).map(|h| vec![h]),
    }
}

fn instruction_id(key: &str) -> Result<u32, String> {
    key.trim()
        .parse()
        .map_err(|_| format!("{key:?} is not an instruction id"))
}

/// One method's `debug_handle_map`: instruction id -> debug handles.
pub type HandleTable = BTreeMap<u32, Vec<u64>>;

/// `debug_handle_map`: method -> instruction id -> handles, methods in file order. An
/// older file without methods is one method, `forward`.
pub fn parse_handle_map(text: &[u8]) -> Result<Vec<(String, HandleTable)>, String> {
    let top: serde_json::Map<String, Value> =
        serde_json::from_slice(text).map_err(|e| e.to_string())?;
    let keyed_by_method = top.values().all(Value::is_object) && !top.is_empty();
    let table = |m: &serde_json::Map<String, Value>| -> Result<BTreeMap<u32, Vec<u64>>, String> {
        m.iter()
            .map(|(k, v)| Ok((instruction_id(k)?, handles_of(v)?)))
            .collect()
    };
    if !keyed_by_method {
        return Ok(vec![("forward".to_string(), table(&top)?)]);
    }
    top.iter()
        .map(|(method, v)| {
            let m = v.as_object().expect("checked above");
            Ok((
                method.clone(),
                table(m).map_err(|e| format!("method {method:?}: {e}"))?,
            ))
        })
        .collect()
}

/// `delegate_map`: method -> instruction id -> `{name, delegate_map: {id: handles}}`.
pub fn parse_delegate_map(
    text: &[u8],
) -> Result<BTreeMap<String, BTreeMap<u32, DelegateRecord>>, String> {
    let top: Value = serde_json::from_slice(text).map_err(|e| e.to_string())?;
    let mut out = BTreeMap::new();
    let Value::Object(top) = top else {
        // `null`: no delegates.
        return if top.is_null() {
            Ok(out)
        } else {
            Err("not an object".into())
        };
    };
    // An older file: instruction ids at the top, one method (`forward`).
    let legacy = !top.is_empty()
        && top.iter().all(|(k, v)| {
            k.trim().parse::<u32>().is_ok()
                && v.as_object()
                    .is_some_and(|o| o.contains_key("name") || o.contains_key("delegate_map"))
        });
    let top: Vec<(String, Value)> = if legacy {
        vec![("forward".to_string(), Value::Object(top))]
    } else {
        top.into_iter().collect()
    };
    for (method, table) in top {
        let mut delegates = BTreeMap::new();
        let Some(table) = table.as_object() else {
            return Err(format!("method {method:?}: not an object"));
        };
        for (instr, entry) in table {
            let id = instruction_id(instr)?;
            let backend = entry
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let mut handles_by_id = BTreeMap::new();
            if let Some(m) = entry.get("delegate_map").and_then(Value::as_object) {
                for (k, v) in m {
                    handles_by_id.insert(
                        k.clone(),
                        handles_of(v).map_err(|e| format!("delegate {instr}: {e}"))?,
                    );
                }
            }
            delegates.insert(
                id,
                DelegateRecord {
                    backend,
                    handles_by_id,
                },
            );
        }
        out.insert(method, delegates);
    }
    Ok(out)
}
