//! The rows as Python columns, named and typed as the Inspector's `to_dataframe()`
//! (`raw` and `op_types` lists, `stack_traces` and `module_hierarchy` dicts — empty, not
//! None, where there are none — `is_delegated_op` bools, None where a text is unknown),
//! then ours. The Python side makes the frame of them.

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyFloat, PyList, PyModule, PyTuple};

use crate::inspector::{DebugValue, Ident, TensorRef};
use crate::rows::{Line, OpTypes, Row};

/// The Inspector's statistics columns, their names in its frame and ours (the issue's).
pub const FIGURES: [(&str, &str); 6] = [
    ("p10 (ms)", "p10"),
    ("p50 (ms)", "p50"),
    ("p90 (ms)", "p90"),
    ("avg (ms)", "avg"),
    ("min (ms)", "min"),
    ("max (ms)", "max"),
];

/// Every column, in the frame's order, as a dict of equal-length lists.
/// `buffer`: the debug buffer given to the load (the tensors of `debug_data` read from it).
pub fn to_dict<'py>(
    py: Python<'py>,
    rows: &[Line<'_>],
    buffer: Option<&[u8]>,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let col =
        |f: &dyn Fn(&Line<'_>) -> PyResult<Bound<'py, PyAny>>| -> PyResult<Bound<'py, PyList>> {
            let items = rows.iter().map(f).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)
        };
    d.set_item(
        "event_block_name",
        col(&|r| Ok(r.block.into_pyobject(py)?.into_any()))?,
    )?;
    d.set_item(
        "event_name",
        col(&|r| Ok(r.name.into_pyobject(py)?.into_any()))?,
    )?;
    let floats = std::cell::RefCell::new(FloatCache::new());
    d.set_item(
        "raw",
        col(&|r| match &r.raw {
            Some(raw) => {
                let mut cache = floats.borrow_mut();
                let items = raw.iter().map(|&v| cache.get(py, v));
                Ok(PyList::new(py, items)?.into_any())
            }
            None => Ok(py.None().into_bound(py)),
        })?,
    )?;
    for (i, (name, _)) in FIGURES.iter().enumerate() {
        let v: Vec<f64> = rows.iter().map(|r| r.figures[i]).collect();
        d.set_item(*name, v)?;
    }
    d.set_item("op_types", col(&|r| op_types(py, r.op_types()))?)?;
    d.set_item(
        "delegate_debug_identifier",
        col(&|r| match r.ident {
            Some(Ident::Int(n)) => Ok(n.into_pyobject(py)?.into_any()),
            Some(Ident::Str(s)) => Ok(s.into_pyobject(py)?.into_any()),
            None => Ok(py.None().into_bound(py)),
        })?,
    )?;
    d.set_item(
        "stack_traces",
        col(&|r| {
            let t = PyDict::new(py);
            for (n, s) in r.stack_traces() {
                t.set_item(n, s)?;
            }
            Ok(t.into_any())
        })?,
    )?;
    d.set_item(
        "module_hierarchy",
        col(&|r| {
            let h = PyDict::new(py);
            for (n, frames) in r.module_hierarchy() {
                let stack = PyDict::new(py);
                let Some(frames) = frames else {
                    h.set_item(n, py.None())?;
                    continue;
                };
                for [k, path, ty] in frames {
                    stack.set_item(k, PyTuple::new(py, [path, ty])?)?;
                }
                h.set_item(n, stack)?;
            }
            Ok(h.into_any())
        })?,
    )?;
    d.set_item(
        "is_delegated_op",
        rows.iter().map(|r| r.delegated()).collect::<Vec<_>>(),
    )?;
    d.set_item(
        "delegate_backend_name",
        rows.iter().map(|r| r.backend()).collect::<Vec<_>>(),
    )?;
    let zeros = Zeros::new(py, rows, buffer)?;
    d.set_item(
        "debug_data",
        col(&|r| {
            let items = r
                .debug
                .iter()
                .map(|v| zeros.value(v))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, items)?.into_any())
        })?,
    )?;
    d.set_item(
        "start_time",
        col(&|r| match r.start {
            Some(s) => {
                // Made from a signed value where it fits (the same ints): CPython 3.11
                // makes them faster that way (columns() of big20k 1.53-1.57 -> 1.45-1.52
                // ms, min of 100, four interleaved rounds).
                let ints = s.iter().map(|&t| {
                    let Ok(int) = match i64::try_from(t) {
                        Ok(t) => t.into_pyobject(py),
                        Err(_) => t.into_pyobject(py),
                    };
                    int
                });
                Ok(PyList::new(py, ints)?.into_any())
            }
            None => Ok(py.None().into_bound(py)),
        })?,
    )?;
    // Ours: the figures under the short names, then what the Inspector lacks.
    for (i, (_, name)) in FIGURES.iter().enumerate() {
        let v: Vec<f64> = rows.iter().map(|r| r.figures[i]).collect();
        d.set_item(*name, v)?;
    }
    d.set_item(
        "instruction_id",
        rows.iter().map(|r| r.instruction_id).collect::<Vec<_>>(),
    )?;
    let meta = |f: &dyn Fn(&Row<'_>) -> Option<String>| -> Vec<Option<String>> {
        rows.iter().map(|r| r.meta.and_then(f)).collect()
    };
    d.set_item("delegate", meta(&|r| r.delegate.clone()))?;
    d.set_item("step", meta(&|r| r.step.map(String::from)))?;
    d.set_item("shapes", meta(&|r| r.shapes()))?;
    let count = |f: fn(&Row<'_>) -> Option<u64>| -> Vec<Option<u64>> {
        rows.iter().map(|r| r.meta.and_then(f)).collect()
    };
    d.set_item("flops", count(|r| r.op.and_then(|o| o.flops)))?;
    d.set_item("bytes", count(|r| r.op.and_then(|o| o.bytes)))?;
    d.set_item("module", meta(&|r| r.module().map(String::from)))?;
    d.set_item("source_line", meta(&|r| r.source_line().map(String::from)))?;
    d.set_item("method", meta(&|r| r.method.map(String::from)))?;
    Ok(d)
}

/// The `raw` column's floats: a sample equal (to the bit) to one made a moment ago is the
/// same Python float, not a new one. A dump's samples repeat (clocks tick in whole µs or
/// ns, runs are alike), and making a float costs an allocation; a value is a value, so the
/// frame is the same cell for cell. Direct-mapped: a miss makes the float and takes the slot.
struct FloatCache<'py> {
    slots: Vec<Option<(u64, Bound<'py, PyFloat>)>>,
}

impl<'py> FloatCache<'py> {
    const BITS: u32 = 12;

    fn new() -> Self {
        FloatCache {
            slots: vec![None; 1 << Self::BITS],
        }
    }

    fn get(&mut self, py: Python<'py>, v: f64) -> Bound<'py, PyFloat> {
        let bits = v.to_bits();
        // Fibonacci hashing: the top bits of the product spread nearby values apart.
        let at = (bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - Self::BITS)) as usize;
        match &self.slots[at] {
            Some((b, f)) if *b == bits => f.clone(),
            _ => {
                let f = PyFloat::new(py, v);
                self.slots[at] = Some((bits, f.clone()));
                f
            }
        }
    }
}

/// `op_types` as the Inspector's frame gives it: the list, or from five on its text
/// `['first', 'second' ... 'last'] (N total)`.
fn op_types<'py>(py: Python<'py>, ops: OpTypes<'_>) -> PyResult<Bound<'py, PyAny>> {
    let n = ops.total();
    match (ops.list, ops.last()) {
        ([first, second, ..], Some(last)) if n >= 5 => {
            let text = format!("['{first}', '{second}' ... '{last}'] ({n} total)");
            Ok(text.into_pyobject(py)?.into_any())
        }
        (list, _) => Ok(PyList::new(py, list)?.into_any()),
    }
}

/// The Inspector's `debug_data` values: a tensor is, without the debug buffer,
/// `torch.zeros(sizes, dtype=...)`; with it, the buffer's bytes at the tensor's offset
/// (`torch.frombuffer(..., dtype=...).view(sizes)`, as the Inspector reads them; zeros for
/// an empty tensor). torch is imported only for a dump that logs tensors; where it is not
/// installed, numpy's arrays of the same shapes, dtypes and values.
struct Zeros<'py, 'b> {
    py: Python<'py>,
    /// torch, else numpy; None where no value is a tensor.
    module: Option<Bound<'py, PyModule>>,
    torch: bool,
    buffer: Option<&'b [u8]>,
}

/// Bytes per element of a torch dtype name (the Inspector's table).
fn dtype_size(dtype: &str) -> u64 {
    match dtype {
        "uint8" | "int8" | "bool" => 1,
        "uint16" | "int16" | "float16" => 2,
        "int32" | "float32" => 4,
        _ => 8,
    }
}

impl<'py, 'b> Zeros<'py, 'b> {
    fn new(py: Python<'py>, rows: &[Line<'_>], buffer: Option<&'b [u8]>) -> PyResult<Self> {
        let tensors = rows
            .iter()
            .flat_map(|r| r.debug)
            .any(|v| matches!(v, DebugValue::Tensor(..) | DebugValue::TensorList(..)));
        if !tensors {
            return Ok(Zeros {
                py,
                module: None,
                torch: false,
                buffer,
            });
        }
        let (module, torch) = match py.import("torch") {
            Ok(m) => (m, true),
            Err(_) => (py.import("numpy")?, false),
        };
        Ok(Zeros {
            py,
            module: Some(module),
            torch,
            buffer,
        })
    }

    fn dtype(&self, m: &Bound<'py, PyModule>, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
        if self.torch {
            m.getattr(dtype)
        } else {
            Ok(dtype.into_pyobject(self.py)?.into_any())
        }
    }

    fn tensor(&self, t: &TensorRef) -> PyResult<Bound<'py, PyAny>> {
        let m = self.module.as_ref().expect("imported for tensors");
        let kw = PyDict::new(self.py);
        kw.set_item("dtype", self.dtype(m, t.dtype)?)?;
        let elements = t
            .sizes
            .iter()
            .try_fold(1u64, |n, &s| n.checked_mul(u64::try_from(s).ok()?));
        let bytes = elements.and_then(|n| n.checked_mul(dtype_size(t.dtype)));
        let Some(buffer) = self.buffer.filter(|_| bytes != Some(0)) else {
            return m.call_method("zeros", (t.sizes.to_vec(),), Some(&kw));
        };
        let at = u64::try_from(t.offset).ok();
        let end = at.zip(bytes).and_then(|(a, n)| a.checked_add(n));
        let Some((at, end)) = at.zip(end).filter(|(_, e)| *e <= buffer.len() as u64) else {
            return Err(crate::err(format!(
                "debug buffer: a tensor of {} bytes at offset {} lies past its end ({} bytes)",
                bytes.map_or_else(|| "too many".to_string(), |n| n.to_string()),
                t.offset,
                buffer.len()
            )));
        };
        let data = PyByteArray::new(self.py, &buffer[at as usize..end as usize]);
        let flat = m.call_method("frombuffer", (data,), Some(&kw))?;
        let shape = (t.sizes.to_vec(),);
        if self.torch {
            flat.call_method1("view", shape)
        } else {
            flat.call_method1("reshape", shape)
        }
    }

    fn value(&self, v: &DebugValue) -> PyResult<Bound<'py, PyAny>> {
        let py = self.py;
        Ok(match v {
            DebugValue::None => py.None().into_bound(py),
            DebugValue::Int(n) => n.into_pyobject(py)?.into_any(),
            DebugValue::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
            DebugValue::Float(f) => f.into_pyobject(py)?.into_any(),
            DebugValue::Tensor(t) => self.tensor(t)?,
            DebugValue::TensorList(l) => {
                let items = l
                    .iter()
                    .map(|t| self.tensor(t))
                    .collect::<PyResult<Vec<_>>>()?;
                PyList::new(py, items)?.into_any()
            }
        })
    }
}
