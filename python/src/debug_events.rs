//! A dump with debug events (intermediate outputs, logged with a debug buffer): the
//! core's decoder counts them without decoding them, so such a dump is read here by the
//! generated flatbuffers reader, every event in order, and grouped as the Inspector
//! groups them (`inspector::Grouping`), the debug events collated with their
//! instruction's profile events. Their values as the Inspector inflates them without the
//! debug buffer (`inspector::DebugValue`).

use cpuprof_tui::etdump::generated::etdump as fb;
use cpuprof_tui::etdump::generated::executorch_flatbuffer::ScalarType;
use cpuprof_tui::etdump::{DelegateId, NameId, NameTable};

use crate::inspector::{Block, DebugValue, Ev, Grouping, Kind, TensorRef};

/// `inspector::blocks` of a dump with debug events (which the profile's decoder counts but does
/// not decode): every event read by the flatbuffers reader, debug events collated with
/// the profile events of their instruction as the Inspector collates them.
pub fn blocks(bytes: &[u8]) -> Result<Vec<Block>, String> {
    // The core decoder's budgets (etdump/checked.rs, `Limits::for_buffer`).
    let options = flatbuffers::VerifierOptions {
        max_depth: 64,
        max_tables: bytes.len() / 4 + 1024,
        max_apparent_size: bytes.len().saturating_mul(16).saturating_add(1 << 20),
        ignore_missing_null_terminator: false,
    };
    let root =
        fb::size_prefixed_root_as_etdump_with_opts(&options, bytes).map_err(|e| e.to_string())?;
    let mut names = NameTable::default();
    let mut values = Vec::new();
    let mut runs = Vec::new();
    for rd in root.run_data().iter().flatten() {
        let mut run = Vec::new();
        for e in rd.events().iter().flatten() {
            let mut id = |s: Option<&str>| s.filter(|s| !s.is_empty()).map(|s| names.intern(s));
            if let Some(p) = e.profile_event() {
                run.push(Ev {
                    instruction_id: p.instruction_id(),
                    chain_index: i64::from(p.chain_index()),
                    name: id(p.name()),
                    delegate: delegate(
                        p.delegate_debug_id_str(),
                        p.delegate_debug_id_int(),
                        &mut id,
                    ),
                    kind: Kind::Profile {
                        start: p.start_time(),
                        end: p.end_time(),
                    },
                });
            } else if let Some(d) = e.debug_event() {
                let entry = d.debug_entry();
                let output = entry.and_then(|v| v.output()).is_some_and(|b| b.bool_val());
                values.push(entry.map_or(Ok(DebugValue::None), value)?);
                run.push(Ev {
                    instruction_id: d.instruction_id(),
                    chain_index: d.chain_index() as i64,
                    name: id(d.name()),
                    delegate: delegate(
                        d.delegate_debug_id_str(),
                        d.delegate_debug_id_int(),
                        &mut id,
                    ),
                    kind: Kind::Debug {
                        value: values.len() - 1,
                        output,
                    },
                });
            }
        }
        let name = rd.name().unwrap_or("").to_string();
        runs.push((name, rd.bundled_input_index(), run));
    }
    let mut g = Grouping::new(&values);
    for (name, bundled, run) in &runs {
        g.run(&names, name, *bundled, run)?;
    }
    Ok(g.finish())
}

fn delegate(
    s: Option<&str>,
    n: i32,
    id: &mut impl FnMut(Option<&str>) -> Option<NameId>,
) -> Option<DelegateId> {
    match id(s) {
        Some(s) => Some(DelegateId::Str(s)),
        None => (n != -1).then_some(DelegateId::Int(n)),
    }
}

/// The torch dtype the Inspector makes a tensor of this scalar type (it refuses others).
fn dtype(t: ScalarType) -> Result<&'static str, String> {
    Ok(match t {
        ScalarType::BYTE => "uint8",
        ScalarType::CHAR => "int8",
        ScalarType::BOOL => "bool",
        ScalarType::BITS16 | ScalarType::UINT16 => "uint16",
        ScalarType::SHORT => "int16",
        ScalarType::HALF => "float16",
        ScalarType::INT => "int32",
        ScalarType::FLOAT => "float32",
        ScalarType::DOUBLE => "float64",
        ScalarType::LONG => "int64",
        other => return Err(format!("a debug event's tensor of scalar type {other:?}")),
    })
}

fn value(v: fb::Value<'_>) -> Result<DebugValue, String> {
    let tensor = |t: Option<fb::Tensor<'_>>| -> Result<TensorRef, String> {
        let t = t.ok_or("a debug event's tensor is missing")?;
        Ok(TensorRef {
            sizes: t.sizes().map(|v| v.iter().collect()).unwrap_or_default(),
            dtype: dtype(t.scalar_type())?,
            offset: t.offset(),
        })
    };
    Ok(match v.val() {
        fb::ValueType::Int => DebugValue::Int(v.int_value().map_or(0, |x| x.int_val())),
        fb::ValueType::Bool => DebugValue::Bool(v.bool_value().is_some_and(|x| x.bool_val())),
        fb::ValueType::Float => {
            DebugValue::Float(f64::from(v.float_value().map_or(0.0, |x| x.float_val())))
        }
        fb::ValueType::Double => {
            DebugValue::Float(v.double_value().map_or(0.0, |x| x.double_val()))
        }
        fb::ValueType::Tensor => DebugValue::Tensor(tensor(v.tensor())?),
        fb::ValueType::TensorList => DebugValue::TensorList(
            v.tensor_list()
                .and_then(|l| l.tensors())
                .iter()
                .flatten()
                .map(|t| tensor(Some(t)))
                .collect::<Result<_, _>>()?,
        ),
        _ => DebugValue::None,
    })
}
