//! The rows as one Arrow record batch, handed to Python through the Arrow PyCapsule
//! interface (`__arrow_c_stream__`): pyarrow (`pa.table(obj)`), polars or DuckDB take its
//! buffers as they are. Each sample is copied once, from the profile into the `raw`
//! column's values buffer; nothing is copied on the way to Python.

use std::ffi::CString;
use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, MapBuilder, StringBuilder};
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::{
    Array, ArrayRef, BooleanArray, Float64Array, Int64Array, ListArray, RecordBatch,
    RecordBatchIterator, StringArray, StructArray, UInt64Array,
};
use arrow_buffer::{OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, Fields, Schema};
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

use crate::columns::FIGURES;
use crate::inspector::DebugValue;
use crate::rows::{Line, Row};

/// A record batch Python reads through `__arrow_c_stream__` (one batch, as many times as
/// it is asked).
#[pyclass(frozen, module = "cpuprof._cpuprof")]
pub struct ArrowTable {
    batch: RecordBatch,
}

impl ArrowTable {
    pub fn new(batch: RecordBatch) -> ArrowTable {
        ArrowTable { batch }
    }
}

#[pymethods]
impl ArrowTable {
    /// The Arrow PyCapsule interface: a capsule `arrow_array_stream` of the batch. A
    /// requested schema is not cast to (the interface lets a producer give its own).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let schema = self.batch.schema();
        let reader = RecordBatchIterator::new([Ok(self.batch.clone())], schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        let name = CString::new("arrow_array_stream").expect("no NUL");
        // The capsule owns the stream; a consumer moves it out (leaving it released), and
        // dropping a stream nobody took releases it.
        PyCapsule::new(py, stream, Some(name))
    }

    #[getter]
    fn num_rows(&self) -> usize {
        self.batch.num_rows()
    }
}

fn text<'r, 'a: 'r>(rows: &'r [Line<'a>], f: impl Fn(&'r Line<'a>) -> Option<&'r str>) -> ArrayRef {
    Arc::new(StringArray::from(rows.iter().map(f).collect::<Vec<_>>()))
}

/// A text of our profile's row (None where the event has none).
fn ours<'r, 'a: 'r>(rows: &'r [Line<'a>], f: impl Fn(&'a Row<'a>) -> Option<&'a str>) -> ArrayRef {
    text(rows, |r| r.meta.and_then(&f))
}

fn floats(rows: &[Line<'_>], f: impl Fn(&Line<'_>) -> f64) -> ArrayRef {
    Arc::new(Float64Array::from(rows.iter().map(f).collect::<Vec<_>>()))
}

/// A list column of each row's values, copied once into one values buffer; a row
/// without values (`of` None) is null.
fn list<T: arrow_array::types::ArrowPrimitiveType>(
    rows: &[Line<'_>],
    of: impl Fn(&Line<'_>) -> Option<Vec<T::Native>>,
) -> ArrayRef {
    let mut values = Vec::new();
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    let mut valid = Vec::with_capacity(rows.len());
    offsets.push(0i32);
    for r in rows {
        let v = of(r);
        valid.push(v.is_some());
        values.extend(v.unwrap_or_default());
        offsets.push(i32::try_from(values.len()).unwrap_or(i32::MAX));
    }
    let item = Arc::new(Field::new("item", T::DATA_TYPE, false));
    let nulls = valid.iter().any(|v| !v).then(|| valid.into());
    Arc::new(ListArray::new(
        item,
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Arc::new(arrow_array::PrimitiveArray::<T>::new(values.into(), None)),
        nulls,
    ))
}

/// `raw`: list<double>, the samples copied once into one values buffer.
fn raw(rows: &[Line<'_>]) -> ArrayRef {
    let total: usize = rows
        .iter()
        .flat_map(|r| r.raw.as_deref())
        .map(<[f64]>::len)
        .sum();
    let mut values = Vec::with_capacity(total);
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    offsets.push(0i32);
    let mut valid = Vec::with_capacity(rows.len());
    for r in rows {
        valid.push(r.raw.is_some());
        values.extend_from_slice(r.raw.as_deref().unwrap_or_default());
        offsets.push(i32::try_from(values.len()).unwrap_or(i32::MAX));
    }
    let item = Arc::new(Field::new("item", DataType::Float64, false));
    let nulls = valid.iter().any(|v| !v).then(|| valid.into());
    Arc::new(ListArray::new(
        item,
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Arc::new(Float64Array::from(values)),
        nulls,
    ))
}

/// A tensor of a tensor list: its sizes and dtype.
type Owned = crate::inspector::TensorRef;

/// A list<int64> of shapes (a None is null).
fn shapes<'v>(items: impl Iterator<Item = Option<&'v [i64]>>) -> ListArray {
    let mut b = ListBuilder::new(Int64Builder::new());
    for s in items {
        match s {
            Some(s) => {
                b.values().append_slice(s);
                b.append(true);
            }
            None => b.append_null(),
        }
    }
    b.finish()
}

/// Tensors as struct<shape: list<int64>, dtype: string> (a None is null).
fn tensors<'v>(items: &[Option<(&'v [i64], &'v str)>]) -> StructArray {
    let shape = shapes(items.iter().map(|t| t.map(|(s, _)| s)));
    let dtype = StringArray::from(items.iter().map(|t| t.map(|(_, d)| d)).collect::<Vec<_>>());
    let nulls = items
        .iter()
        .any(Option::is_none)
        .then(|| items.iter().map(Option::is_some).collect::<Vec<_>>().into());
    StructArray::new(
        Fields::from(vec![
            Field::new("shape", shape.data_type().clone(), true),
            Field::new("dtype", DataType::Utf8, true),
        ]),
        vec![Arc::new(shape), Arc::new(dtype)],
        nulls,
    )
}

/// Offsets of a list column whose rows hold `lens` items each.
fn offsets(lens: impl Iterator<Item = usize>) -> OffsetBuffer<i32> {
    let mut at = 0usize;
    let mut out = vec![0i32];
    for n in lens {
        at += n;
        out.push(i32::try_from(at).unwrap_or(i32::MAX));
    }
    OffsetBuffer::new(ScalarBuffer::from(out))
}

/// `debug_data`: per row the outputs its debug events log (the frame's `debug_data`, in
/// its order), each a struct: `kind` (`tensor`, `tensor_list`, `int`, `float`, `bool`,
/// `none`), a tensor's `shape` and `dtype` (torch's dtype name without `torch.`: the
/// frame's tensors are zeros of them), a tensor list's `tensors` (list<struct<shape,
/// dtype>>), a scalar's `int`, `float` or `bool`; a field not of the kind is null.
fn debug_data(rows: &[Line<'_>]) -> ArrayRef {
    let values: Vec<&DebugValue> = rows.iter().flat_map(|r| r.debug.iter()).collect();
    let kind = StringArray::from(
        values
            .iter()
            .map(|v| {
                Some(match v {
                    DebugValue::None => "none",
                    DebugValue::Int(_) => "int",
                    DebugValue::Bool(_) => "bool",
                    DebugValue::Float(_) => "float",
                    DebugValue::Tensor(..) => "tensor",
                    DebugValue::TensorList(_) => "tensor_list",
                })
            })
            .collect::<Vec<_>>(),
    );
    let tensor: Vec<Option<(&[i64], &str)>> = values
        .iter()
        .map(|v| match v {
            DebugValue::Tensor(t) => Some((&t.sizes[..], t.dtype)),
            _ => None,
        })
        .collect();
    let tensor = tensors(&tensor);
    let (shape, dtype) = (tensor.column(0).clone(), tensor.column(1).clone());
    let lists: Vec<Option<&[Owned]>> = values
        .iter()
        .map(|v| match v {
            DebugValue::TensorList(l) => Some(&l[..]),
            _ => None,
        })
        .collect();
    let listed: Vec<Option<(&[i64], &str)>> = lists
        .iter()
        .flatten()
        .flat_map(|l| l.iter().map(|t| Some((&t.sizes[..], t.dtype))))
        .collect();
    let listed = tensors(&listed);
    let list_nulls = lists
        .iter()
        .any(Option::is_none)
        .then(|| lists.iter().map(Option::is_some).collect::<Vec<_>>().into());
    let in_list = ListArray::new(
        Arc::new(Field::new("item", listed.data_type().clone(), false)),
        offsets(lists.iter().map(|l| l.map_or(0, <[_]>::len))),
        Arc::new(listed),
        list_nulls,
    );
    let int = Int64Array::from(
        values
            .iter()
            .map(|v| match v {
                DebugValue::Int(n) => Some(*n),
                _ => None,
            })
            .collect::<Vec<_>>(),
    );
    let float = Float64Array::from(
        values
            .iter()
            .map(|v| match v {
                DebugValue::Float(f) => Some(*f),
                _ => None,
            })
            .collect::<Vec<_>>(),
    );
    let boolean = BooleanArray::from(
        values
            .iter()
            .map(|v| match v {
                DebugValue::Bool(b) => Some(*b),
                _ => None,
            })
            .collect::<Vec<_>>(),
    );
    let columns: Vec<(&str, ArrayRef)> = vec![
        ("kind", Arc::new(kind)),
        ("shape", shape),
        ("dtype", dtype),
        ("tensors", Arc::new(in_list)),
        ("int", Arc::new(int)),
        ("float", Arc::new(float)),
        ("bool", Arc::new(boolean)),
    ];
    let fields: Fields = columns
        .iter()
        .map(|(n, a)| Field::new(*n, a.data_type().clone(), *n != "kind"))
        .collect();
    let outputs = StructArray::new(fields, columns.into_iter().map(|(_, a)| a).collect(), None);
    Arc::new(ListArray::new(
        Arc::new(Field::new("item", outputs.data_type().clone(), false)),
        offsets(rows.iter().map(|r| r.debug.len())),
        Arc::new(outputs),
        None,
    ))
}

/// The frame's columns (`columns::to_dict`) as a record batch, typed: lists, maps for the
/// Inspector's dicts (`module_hierarchy`'s frames as [path, type] lists), nullable ints.
pub fn batch(rows: &[Line<'_>]) -> Result<RecordBatch, String> {
    let mut cols: Vec<(String, ArrayRef)> = vec![
        ("event_block_name".into(), text(rows, |r| Some(r.block))),
        ("event_name".into(), text(rows, |r| Some(r.name))),
        ("raw".into(), raw(rows)),
    ];
    for (i, (name, _)) in FIGURES.iter().enumerate() {
        cols.push((name.to_string(), floats(rows, |r| r.figures[i])));
    }
    let mut ops = ListBuilder::new(StringBuilder::new());
    let mut traces = MapBuilder::new(None, StringBuilder::new(), StringBuilder::new());
    let frames = MapBuilder::new(
        None,
        StringBuilder::new(),
        ListBuilder::new(StringBuilder::new()),
    );
    let mut hierarchy = MapBuilder::new(None, StringBuilder::new(), frames);
    for r in rows {
        for t in r.op_types().list {
            ops.values().append_value(t);
        }
        ops.append(true);
        for (n, s) in r.stack_traces() {
            traces.keys().append_value(n);
            traces.values().append_option(s);
        }
        traces.append(true).map_err(|e| e.to_string())?;
        for (n, stack) in r.module_hierarchy() {
            hierarchy.keys().append_value(n);
            let m = hierarchy.values();
            let Some(stack) = stack else {
                m.append(false).map_err(|e| e.to_string())?;
                continue;
            };
            for [k, path, ty] in stack {
                m.keys().append_value(k);
                m.values().values().append_value(path);
                m.values().values().append_value(ty);
                m.values().append(true);
            }
            m.append(true).map_err(|e| e.to_string())?;
        }
        hierarchy.append(true).map_err(|e| e.to_string())?;
    }
    cols.push(("op_types".into(), Arc::new(ops.finish())));
    cols.push((
        "delegate_debug_identifier".into(),
        Arc::new(StringArray::from(
            rows.iter()
                .map(|r| r.ident_text().map(String::from))
                .collect::<Vec<_>>(),
        )),
    ));
    cols.push(("stack_traces".into(), Arc::new(traces.finish())));
    cols.push(("module_hierarchy".into(), Arc::new(hierarchy.finish())));
    let delegated: Vec<bool> = rows.iter().map(|r| r.delegated()).collect();
    cols.push((
        "is_delegated_op".into(),
        Arc::new(BooleanArray::from(delegated)),
    ));
    cols.push(("delegate_backend_name".into(), text(rows, |r| r.backend())));
    cols.push(("debug_data".into(), debug_data(rows)));
    let starts = list::<arrow_array::types::Int64Type>(rows, |r| {
        r.start.map(|s| {
            s.iter()
                .map(|&t| i64::try_from(t).unwrap_or(i64::MAX))
                .collect()
        })
    });
    cols.push(("start_time".into(), starts));
    for (i, (_, name)) in FIGURES.iter().enumerate() {
        cols.push((name.to_string(), floats(rows, |r| r.figures[i])));
    }
    let ids: Vec<Option<i64>> = rows.iter().map(|r| r.instruction_id).collect();
    cols.push(("instruction_id".into(), Arc::new(Int64Array::from(ids))));
    cols.push(("delegate".into(), ours(rows, |r| r.delegate.as_deref())));
    cols.push(("step".into(), ours(rows, |r| r.step)));
    let shapes: Vec<Option<String>> = rows
        .iter()
        .map(|r| r.meta.and_then(|m| m.shapes()))
        .collect();
    cols.push(("shapes".into(), Arc::new(StringArray::from(shapes))));
    let count = |f: fn(&Row<'_>) -> Option<u64>| -> ArrayRef {
        Arc::new(UInt64Array::from(
            rows.iter().map(|r| r.meta.and_then(f)).collect::<Vec<_>>(),
        ))
    };
    cols.push(("flops".into(), count(|r| r.op.and_then(|o| o.flops))));
    cols.push(("bytes".into(), count(|r| r.op.and_then(|o| o.bytes))));
    cols.push(("module".into(), ours(rows, |r| r.module())));
    cols.push(("source_line".into(), ours(rows, |r| r.source_line())));
    cols.push(("method".into(), ours(rows, |r| r.method)));
    named_batch(cols)
}

/// A batch of named columns, each field nullable and typed as its array.
pub fn named_batch(cols: Vec<(String, ArrayRef)>) -> Result<RecordBatch, String> {
    let fields: Vec<Field> = cols
        .iter()
        .map(|(n, a)| Field::new(n, a.data_type().clone(), true))
        .collect();
    let arrays = cols.into_iter().map(|(_, a)| a).collect();
    RecordBatch::try_new(Arc::new(Schema::new(fields)), arrays)
        .map_err(|e| format!("building the Arrow table: {e}"))
}
