//! Efficiency from shapes: floating-point operations and bytes moved per call of an
//! operator whose tensor shapes are recorded, and the rates achieved at its median.
//!
//! The rules (no other figure is guessed; where a rule does not apply the answer is
//! `None`):
//! - FLOPs = 2 × output elements × reduction length for convolutions and fully connected
//!   operators (the reduction is the product of the weight's dimensions after the first:
//!   `[16,3,3,3]` → 27, a depthwise `[16,1,3,3]` → 9) and batch matrix multiplies (the
//!   shared dimension, the first input's last); 1 per output element for elementwise
//!   operators; 0 for operators that only move data (transpose, reshape, copy, pad, ...).
//!   Other operators (pooling, softmax, reductions, ...) have no FLOP count here.
//! - Bytes = elements of every input and of the outputs, at the one element type named
//!   in the operator's name (`(NHWC, F32)`: F32 4, F16 2, QS8/QU8/QC8/X8 1, X16 2,
//!   X32 4). A name without a type, or with several (`QD8, F32, QC8W`), has no byte
//!   count.
//! - An output shape that is not recorded is derived only where the operator's
//!   semantics make it certain (elementwise and data-movement operators keep the
//!   element count or broadcast their inputs; a fully connected operator maps rows of
//!   the reduction length to the weight's first dimension; a batch matrix multiply's
//!   output is `[..batch, M, N]`); a convolution's depends on strides and padding the
//!   shapes do not say, so it stays unknown.

use serde::{Deserialize, Serialize};

/// FLOPs and bytes of one call of an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Cost {
    pub flops: Option<u64>,
    pub bytes: Option<u64>,
}

/// What an operator's name says it computes (decides the FLOP rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpClass {
    /// Convolution: the weight (second input) gives the reduction length.
    Convolution,
    FullyConnected,
    BatchMatMul,
    /// One output element per element of the (only) input.
    Unary,
    /// Output is the broadcast of the two inputs.
    Binary,
    /// Moves data, computes nothing; output has as many elements as the input.
    Movement,
    /// Moves data into an output whose shape only the record gives (pad, slice, concat).
    MovementShaped,
    /// Anything else: no FLOP rule; output elements equal the input's (softmax-like).
    SameShape,
    /// No rule at all.
    Unknown,
}

const UNARY_XNNPACK: &[&str] = &[
    "Abs",
    "Bankers Rounding",
    "Ceiling",
    "Clamp",
    "Cosine",
    "ELU",
    "Exp",
    "Floor",
    "GELU",
    "HardSwish",
    "Leaky ReLU",
    "Log",
    "Negate",
    "Reciprocal Square Root",
    "Sigmoid",
    "Sine",
    "Square",
    "Square Root",
    "Tanh",
    "Truncation",
];

const BINARY_XNNPACK: &[&str] = &[
    "Add",
    "Copy Sign",
    "Divide",
    "Maximum",
    "Minimum",
    "Multiply",
    "Power",
    "PReLU",
    "Squared Difference",
    "Subtract",
];

const MOVEMENT_XNNPACK: &[&str] = &[
    "Channel Shuffle",
    "Copy",
    "Depth To Space",
    "Space To Depth",
    "Static Reshape",
    "Transpose",
];

const SHAPED_MOVEMENT_XNNPACK: &[&str] = &["Concatenate", "Constant Pad", "Slice", "Even Split"];

const SAME_SHAPE_XNNPACK: &[&str] = &["Softmax", "Log Softmax"];

/// Portable kernels (`native_call_<op>.<overload>`) with an elementwise rule.
const UNARY_KERNELS: &[&str] = &[
    "abs",
    "ceil",
    "clamp",
    "cos",
    "elu",
    "erf",
    "exp",
    "floor",
    "gelu",
    "hardswish",
    "hardtanh",
    "leaky_relu",
    "log",
    "neg",
    "reciprocal",
    "relu",
    "round",
    "rsqrt",
    "sigmoid",
    "sin",
    "sqrt",
    "tanh",
    "trunc",
];
const BINARY_KERNELS: &[&str] = &["add", "div", "maximum", "minimum", "mul", "pow", "sub"];
const MOVEMENT_KERNELS: &[&str] = &[
    "_to_dim_order_copy",
    "clone",
    "copy",
    "permute_copy",
    "pixel_shuffle",
    "pixel_unshuffle",
    "transpose_copy",
    "view_copy",
];

/// The head of an XNNPACK operator type (`Fully Connected (NC, F32) GEMM #3` →
/// `Fully Connected`) and the tokens in its parentheses (`["NC", "F32"]`).
fn split_name(name: &str) -> (&str, Vec<&str>) {
    let ty = super::classify::operator_type(name);
    match ty.find(" (") {
        Some(open) => {
            let rest = &ty[open + 2..];
            let inner = rest.split(')').next().unwrap_or("");
            (&ty[..open], inner.split(',').map(str::trim).collect())
        }
        None => (ty, Vec::new()),
    }
}

/// The portable kernel's operator: `native_call_add.out` → `add`.
fn kernel_op(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("native_call_")?;
    let op = rest.split('.').next().unwrap_or(rest);
    (!op.is_empty()).then_some(op)
}

/// The FLOP rule an operator name falls under.
pub fn classify(name: &str) -> OpClass {
    if let Some(op) = kernel_op(name) {
        return if UNARY_KERNELS.contains(&op) {
            OpClass::Unary
        } else if BINARY_KERNELS.contains(&op) {
            OpClass::Binary
        } else if MOVEMENT_KERNELS.contains(&op) {
            OpClass::Movement
        } else {
            OpClass::Unknown
        };
    }
    let (head, _) = split_name(name);
    let is = |list: &[&str]| list.contains(&head);
    if head == "Convolution" {
        OpClass::Convolution
    } else if head == "Fully Connected" {
        OpClass::FullyConnected
    } else if head == "Batch Matrix Multiply" {
        OpClass::BatchMatMul
    } else if is(UNARY_XNNPACK) {
        OpClass::Unary
    } else if is(BINARY_XNNPACK) {
        OpClass::Binary
    } else if is(MOVEMENT_XNNPACK) {
        OpClass::Movement
    } else if is(SHAPED_MOVEMENT_XNNPACK) {
        OpClass::MovementShaped
    } else if is(SAME_SHAPE_XNNPACK) {
        OpClass::SameShape
    } else {
        OpClass::Unknown
    }
}

/// Bytes per element of the one element type in the operator's name, if it names one.
pub fn element_bytes(name: &str) -> Option<u64> {
    let (_, tokens) = split_name(name);
    // The first token is the layout (`NC`, `NHWC`, `ND`); exactly one type must follow.
    match tokens.get(1..)? {
        [one] => match *one {
            "F32" | "X32" => Some(4),
            "F16" | "X16" => Some(2),
            "QS8" | "QU8" | "QC8" | "X8" => Some(1),
            _ => None,
        },
        _ => None,
    }
}

/// Elements of one shape; None for a negative dimension or an overflow.
pub fn elements(shape: &[i64]) -> Option<u64> {
    shape.iter().try_fold(1u64, |acc, &d| {
        let d = u64::try_from(d).ok()?;
        acc.checked_mul(d)
    })
}

/// The numpy broadcast of two shapes, None when they do not broadcast.
fn broadcast(a: &[i64], b: &[i64]) -> Option<Vec<i64>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for i in 0..n {
        let da = if i < n - a.len() {
            1
        } else {
            a[i - (n - a.len())]
        };
        let db = if i < n - b.len() {
            1
        } else {
            b[i - (n - b.len())]
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return None;
        };
    }
    Some(out)
}

/// The reduction length of a convolution or fully connected operator: the product of
/// the weight's dimensions after the first.
fn weight_reduction(inputs: &[Vec<i64>]) -> Option<u64> {
    let w = inputs.get(1)?;
    if w.len() < 2 {
        return None;
    }
    elements(&w[1..]).filter(|&k| k > 0)
}

/// A batch matrix multiply's shared dimension and output shape (derived when not given).
fn bmm(inputs: &[Vec<i64>], outputs: Option<&[Vec<i64>]>) -> Option<(u64, u64)> {
    let (a, b) = (inputs.first()?, inputs.get(1)?);
    if a.len() < 2 || b.len() < 2 {
        return None;
    }
    let k = a[a.len() - 1];
    let k_u = u64::try_from(k).ok()?;
    if let Some([out]) = outputs {
        return Some((k_u, elements(out)?));
    }
    let (b_rows, b_cols) = (b[b.len() - 2], b[b.len() - 1]);
    // `[.., K, N]`, or with a transposed second input `[.., N, K]`; a square `[K, K]`
    // gives N = K either way.
    let n = if b_rows == k {
        b_cols
    } else if b_cols == k {
        b_rows
    } else {
        return None;
    };
    let mut shape = broadcast(&a[..a.len() - 2], &b[..b.len() - 2])?;
    shape.push(a[a.len() - 2]);
    shape.push(n);
    Some((k_u, elements(&shape)?))
}

/// Output elements of one call: the recorded outputs', else derived where certain.
fn output_elements(
    class: OpClass,
    inputs: &[Vec<i64>],
    outputs: Option<&[Vec<i64>]>,
) -> Option<u64> {
    if let Some(outs) = outputs {
        return outs
            .iter()
            .try_fold(0u64, |acc, s| acc.checked_add(elements(s)?));
    }
    match class {
        OpClass::Unary | OpClass::Movement | OpClass::SameShape => match inputs {
            [only] => elements(only),
            _ => None,
        },
        OpClass::Binary => match inputs {
            [a, b] => elements(&broadcast(a, b)?),
            _ => None,
        },
        OpClass::FullyConnected => {
            let k = weight_reduction(inputs)?;
            let n = u64::try_from(*inputs.get(1)?.first()?).ok()?;
            let x = elements(inputs.first()?)?;
            (x % k == 0)
                .then(|| x / k)
                .and_then(|rows| rows.checked_mul(n))
        }
        OpClass::BatchMatMul => bmm(inputs, None).map(|(_, e)| e),
        OpClass::Convolution | OpClass::MovementShaped | OpClass::Unknown => None,
    }
}

/// FLOPs and bytes of one call of `name` with these shapes (None without input shapes).
pub fn operator_cost(
    name: &str,
    inputs: Option<&[Vec<i64>]>,
    outputs: Option<&[Vec<i64>]>,
) -> Cost {
    let Some(inputs) = inputs else {
        return Cost::default();
    };
    let class = classify(name);
    let out = output_elements(class, inputs, outputs);
    let two = |e: u64, k: u64| e.checked_mul(k)?.checked_mul(2);
    let flops = match class {
        OpClass::Convolution | OpClass::FullyConnected => out
            .zip(weight_reduction(inputs))
            .and_then(|(e, k)| two(e, k)),
        OpClass::BatchMatMul => bmm(inputs, outputs).and_then(|(k, e)| two(e, k)),
        OpClass::Unary | OpClass::Binary => out,
        OpClass::Movement | OpClass::MovementShaped => out.map(|_| 0),
        OpClass::SameShape | OpClass::Unknown => None,
    };
    let bytes = element_bytes(name).and_then(|size| {
        let ins = inputs
            .iter()
            .try_fold(0u64, |acc, s| acc.checked_add(elements(s)?))?;
        ins.checked_add(out?)?.checked_mul(size)
    });
    Cost { flops, bytes }
}

/// Achieved rates at a median call time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rates {
    pub gflops: Option<f64>,
    pub gbps: Option<f64>,
}

/// GFLOP/s and GB/s (10^9 per second) of `cost` done in `median_ms`; None for a time that
/// is not positive (an operator under the clock quantum has no measurable rate).
pub fn rates(cost: Cost, median_ms: f64) -> Rates {
    let per_s = |n: u64| {
        (median_ms.is_finite() && median_ms > 0.0).then(|| n as f64 / (median_ms * 1e-3) / 1e9)
    };
    Rates {
        gflops: cost.flops.and_then(per_s),
        gbps: cost.bytes.and_then(per_s),
    }
}

/// The machine's peaks, from `--peak GFLOPS,GBPS`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Peak {
    pub gflops: f64,
    pub gbps: f64,
}

impl Peak {
    /// `GFLOPS,GBPS`: two finite positive numbers.
    pub fn parse(text: &str) -> Result<Peak, String> {
        let bad = || format!("`{text}` is not GFLOPS,GBPS (two positive numbers, e.g. 100,20)");
        let (f, b) = text.split_once(',').ok_or_else(bad)?;
        let num = |s: &str| {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v > 0.0)
        };
        match (num(f), num(b)) {
            (Some(gflops), Some(gbps)) => Ok(Peak { gflops, gbps }),
            _ => Err(bad()),
        }
    }

    /// The roofline's ridge point: FLOPs per byte where compute and memory peaks meet.
    pub fn ridge(&self) -> f64 {
        self.gflops / self.gbps
    }
}

/// Which roof bounds an operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    Compute,
    Memory,
}

impl Bound {
    pub fn label(self) -> &'static str {
        match self {
            Bound::Compute => "compute",
            Bound::Memory => "memory",
        }
    }
}

/// An operator on the roofline: its bound and the share of the attainable rate it
/// reaches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Roofline {
    /// FLOPs per byte.
    pub intensity: f64,
    pub bound: Bound,
    /// Achieved / attainable (0..), where attainable = min(peak GFLOP/s, intensity ×
    /// peak GB/s); for an operator that computes nothing, achieved / peak GB/s.
    pub peak_share: f64,
}

/// The roofline of `cost` done in `median_ms` under `peak`; None without both counts or
/// a measurable time. At the ridge point exactly, both roofs meet: `compute`.
pub fn roofline(cost: Cost, median_ms: f64, peak: Peak) -> Option<Roofline> {
    let (flops, bytes) = (cost.flops?, cost.bytes?);
    let r = rates(cost, median_ms);
    let (gflops, gbps) = (r.gflops?, r.gbps?);
    if bytes == 0 {
        return None;
    }
    let intensity = flops as f64 / bytes as f64;
    let bound = if intensity >= peak.ridge() {
        Bound::Compute
    } else {
        Bound::Memory
    };
    let peak_share = if flops == 0 {
        gbps / peak.gbps
    } else {
        gflops / (peak.gflops.min(intensity * peak.gbps))
    };
    Some(Roofline {
        intensity,
        bound,
        peak_share,
    })
}

/// A count per call with an SI prefix: `777.6 kFLOP`, `71.6 kB`, `512 B`.
pub fn count_text(n: u64, unit: &str) -> String {
    let v = n as f64;
    for (scale, prefix) in [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")] {
        if v >= scale {
            return format!("{:.1} {prefix}{unit}", v / scale);
        }
    }
    format!("{n} {unit}")
}

/// A rate (GFLOP/s, GB/s) in 3 significant figures or so: `123`, `12.3`, `1.23`,
/// `0.012`, `0`; `-` without one (no count, or a time under the clock quantum).
pub fn rate_text(rate: Option<f64>) -> String {
    match rate {
        // An operator that only moves data computes nothing.
        Some(0.0) => "0".into(),
        Some(v) if v.is_finite() && v >= 99.95 => format!("{v:.0}"),
        Some(v) if v.is_finite() && v >= 9.995 => format!("{v:.1}"),
        Some(v) if v.is_finite() && v >= 0.995 => format!("{v:.2}"),
        Some(v) if v.is_finite() => format!("{v:.3}"),
        _ => "-".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(name: &str, i: &[&[i64]], o: Option<&[&[i64]]>) -> Cost {
        let i: Vec<Vec<i64>> = i.iter().map(|s| s.to_vec()).collect();
        let o: Option<Vec<Vec<i64>>> = o.map(|o| o.iter().map(|s| s.to_vec()).collect());
        operator_cost(name, Some(&i), o.as_deref())
    }

    /// The example: a `[16,3,3,3]` weight reduces over 27; the output
    /// `[1,16,30,30]` has 14400 elements: 2 × 14400 × 27 = 777600 FLOPs. Bytes: inputs
    /// 3072 + 432, output 14400, at F32: (3072 + 432 + 14400) × 4 = 71616.
    #[test]
    fn convolution_by_hand() {
        let c = cost(
            "Convolution (NHWC, F32) IGEMM #1",
            &[&[1, 3, 32, 32], &[16, 3, 3, 3]],
            Some(&[&[1, 16, 30, 30]]),
        );
        assert_eq!(c.flops, Some(777_600));
        assert_eq!(c.bytes, Some(71_616));
        // Without the output, a convolution's size is unknown (strides, padding).
        let c = cost(
            "Convolution (NHWC, F32) IGEMM #1",
            &[&[1, 3, 32, 32], &[16, 3, 3, 3]],
            None,
        );
        assert_eq!(c, Cost::default());
    }

    /// Depthwise `[16,1,3,3]`: 9 per output element.
    #[test]
    fn depthwise_reduces_over_its_window() {
        let c = cost(
            "Convolution (NHWC, F32) DWConv #1",
            &[&[1, 16, 32, 32], &[16, 1, 3, 3], &[16]],
            Some(&[&[1, 16, 32, 32]]),
        );
        assert_eq!(c.flops, Some(2 * 16384 * 9));
        assert_eq!(c.bytes, Some((16384 + 144 + 16 + 16384) * 4));
    }

    /// `[1,256] × [512,256]ᵀ`: 2 × 512 × 256 = 262144; the output is derived when not
    /// recorded (rows of 256 → 512 outputs each).
    #[test]
    fn fully_connected_derives_its_output() {
        let recorded = cost(
            "Fully Connected (NC, F32) GEMM #1",
            &[&[1, 256], &[512, 256], &[512]],
            Some(&[&[1, 512]]),
        );
        let derived = cost(
            "Fully Connected (NC, F32) GEMM #1",
            &[&[1, 256], &[512, 256], &[512]],
            None,
        );
        assert_eq!(recorded.flops, Some(262_144));
        assert_eq!(recorded.bytes, Some((256 + 131_072 + 512 + 512) * 4));
        assert_eq!(derived, recorded);
        // A row count that does not divide: no output, no figures.
        let odd = cost(
            "Fully Connected (NC, F32) GEMM #1",
            &[&[1, 7], &[4, 3]],
            None,
        );
        assert_eq!(odd, Cost::default());
    }

    /// `[2,3,4] × [2,4,5]` → `[2,3,5]`: 2 × 30 × 4 = 240; transposed `[2,5,4]` the same.
    #[test]
    fn batch_matrix_multiply_uses_the_shared_dimension() {
        let name = "Batch Matrix Multiply (NC, F32) #1";
        let plain = cost(name, &[&[2, 3, 4], &[2, 4, 5]], None);
        let transposed = cost(name, &[&[2, 3, 4], &[2, 5, 4]], None);
        let recorded = cost(name, &[&[2, 3, 4], &[2, 4, 5]], Some(&[&[2, 3, 5]]));
        assert_eq!(plain.flops, Some(240));
        assert_eq!(plain.bytes, Some((24 + 40 + 30) * 4));
        assert_eq!(transposed.flops, Some(240));
        assert_eq!(recorded, plain);
        assert_eq!(cost(name, &[&[2, 3, 4], &[2, 6, 5]], None).flops, None);
    }

    #[test]
    fn elementwise_and_movement() {
        // Broadcast `[1,16,1,1]` over `[1,16,8,8]`: 1024 outputs, 1 FLOP each; no type
        // in `Multiply (ND)`: no bytes.
        let m = cost("Multiply (ND) #1", &[&[1, 16, 8, 8], &[1, 16, 1, 1]], None);
        assert_eq!(
            m,
            Cost {
                flops: Some(1024),
                bytes: None
            }
        );
        let t = cost("Transpose (ND, X32) #1", &[&[1, 3, 32, 32]], None);
        assert_eq!(
            t,
            Cost {
                flops: Some(0),
                bytes: Some(2 * 3072 * 4)
            }
        );
        let s = cost("Softmax (NC, F32) #1", &[&[1, 10]], Some(&[&[1, 10]]));
        assert_eq!(
            s,
            Cost {
                flops: None,
                bytes: Some(80)
            }
        );
        let pool = cost("Max Pooling (NHWC, F32) #1", &[&[1, 16, 30, 30]], None);
        assert_eq!(pool, Cost::default());
        let neg = cost("native_call_neg.out", &[&[1, 16, 15, 15]], None);
        assert_eq!(
            neg,
            Cost {
                flops: Some(3600),
                bytes: None
            }
        );
        assert_eq!(cost("Add (ND) #1", &[&[3], &[4]], None).flops, None);
    }

    #[test]
    fn element_types_from_the_name() {
        assert_eq!(element_bytes("Convolution (NHWC, F32) IGEMM #3"), Some(4));
        assert_eq!(element_bytes("Convolution (NHWC, F16) IGEMM"), Some(2));
        assert_eq!(element_bytes("Convolution (NHWC, QC8) IGEMM"), Some(1));
        assert_eq!(element_bytes("Transpose (ND, X32) #1"), Some(4));
        assert_eq!(element_bytes("Copy (NC, X8)"), Some(1));
        assert_eq!(element_bytes("Add (ND) #1"), None);
        assert_eq!(
            element_bytes("Fully Connected (NC, QD8, F32, QC8W) GEMM"),
            None
        );
        assert_eq!(element_bytes("native_call_add.out"), None);
    }

    #[test]
    fn hostile_shapes_give_no_figures() {
        let c = cost("Add (ND) #1", &[&[-1, 4], &[-1, 4]], None);
        assert_eq!(c, Cost::default());
        let huge = i64::MAX;
        let c = cost(
            "Convolution (NHWC, F32) IGEMM #1",
            &[&[huge, huge], &[huge, huge]],
            Some(&[&[huge, huge]]),
        );
        assert_eq!(c, Cost::default());
        assert_eq!(operator_cost("Add (ND) #1", None, None), Cost::default());
    }

    /// 777600 FLOPs in 10 µs: 77.76 GFLOP/s; 71616 bytes: 7.1616 GB/s.
    #[test]
    fn rates_at_the_median() {
        let c = Cost {
            flops: Some(777_600),
            bytes: Some(71_616),
        };
        let r = rates(c, 0.010);
        assert!((r.gflops.unwrap() - 77.76).abs() < 1e-9);
        assert!((r.gbps.unwrap() - 7.1616).abs() < 1e-9);
        assert_eq!(
            rates(c, 0.0),
            Rates {
                gflops: None,
                gbps: None
            }
        );
        assert_eq!(rate_text(Some(77.76)), "77.8");
        assert_eq!(rate_text(Some(7.1616)), "7.16");
        // Rounding up to the next magnitude keeps three figures: 99.96 is `100`, not
        // `100.0`; 9.996 is `10.0`; no rate (NaN, infinite) is `-`.
        assert_eq!(rate_text(Some(99.96)), "100");
        assert_eq!(rate_text(Some(9.996)), "10.0");
        assert_eq!(rate_text(Some(f64::NAN)), "-");
        assert_eq!(rate_text(None), "-");
        assert_eq!(rate_text(Some(0.0)), "0");
        assert_eq!(rate_text(None), "-");
        assert_eq!(count_text(777_600, "FLOP"), "777.6 kFLOP");
        assert_eq!(count_text(71_616, "B"), "71.6 kB");
        assert_eq!(count_text(512, "B"), "512 B");
        assert_eq!(count_text(1_234_567_890, "FLOP"), "1.2 GFLOP");
    }

    /// Peaks 100 GFLOP/s and 20 GB/s: the ridge is at 5 FLOPs per byte.
    /// - The convolution above: 777600 / 71616 = 10.86 FLOP/byte ≥ 5: compute-bound;
    ///   attainable min(100, 10.86 × 20) = 100; at 77.76 GFLOP/s, 77.76% of peak.
    /// - The MLP's first GEMM: 262144 FLOPs over 529408 bytes = 0.4952 FLOP/byte:
    ///   memory-bound; attainable 0.4952 × 20 = 9.903 GFLOP/s; in 50 µs it reaches
    ///   5.243 GFLOP/s: 52.94% (= achieved 10.588 GB/s / 20).
    /// - A transpose (0 FLOPs): memory-bound, 24576 bytes in 2 µs = 12.288 GB/s: 61.44%.
    #[test]
    fn roofline_marks_on_chosen_peaks() {
        let peak = Peak::parse("100,20").unwrap();
        assert_eq!(peak.ridge(), 5.0);
        let conv = Cost {
            flops: Some(777_600),
            bytes: Some(71_616),
        };
        let r = roofline(conv, 0.010, peak).unwrap();
        assert_eq!(r.bound, Bound::Compute);
        assert!((r.peak_share - 0.7776).abs() < 1e-9);
        let gemm = Cost {
            flops: Some(262_144),
            bytes: Some(529_408),
        };
        let r = roofline(gemm, 0.050, peak).unwrap();
        assert_eq!(r.bound, Bound::Memory);
        assert!((r.peak_share - 0.529408).abs() < 1e-9, "{}", r.peak_share);
        let t = Cost {
            flops: Some(0),
            bytes: Some(24_576),
        };
        let r = roofline(t, 0.002, peak).unwrap();
        assert_eq!(r.bound, Bound::Memory);
        assert!((r.peak_share - 0.6144).abs() < 1e-9);
        // The same GEMM is compute-bound on a machine whose ridge is below 0.4952.
        let r = roofline(gemm, 0.050, Peak::parse("10,100").unwrap()).unwrap();
        assert_eq!(r.bound, Bound::Compute);
        assert!(roofline(
            Cost {
                flops: None,
                bytes: Some(8)
            },
            0.01,
            peak
        )
        .is_none());
    }

    proptest::proptest! {
        /// Any shapes, sane or hostile, under any rule: no panic, and a figure only when
        /// every dimension is a real size.
        #[test]
        fn any_shapes_never_panic(
            pick in 0usize..8,
            ins in proptest::collection::vec(
                proptest::collection::vec(proptest::prop_oneof![-3i64..70, proptest::strategy::Just(i64::MAX)], 0..5),
                0..4,
            ),
            outs in proptest::option::of(proptest::collection::vec(
                proptest::collection::vec(-3i64..70, 0..5),
                0..3,
            )),
        ) {
            let names = [
                "Convolution (NHWC, F32) IGEMM #1",
                "Fully Connected (NC, F16) GEMM #2",
                "Batch Matrix Multiply (NC, F32) #1",
                "Add (ND) #1",
                "Clamp (NC) #1",
                "Transpose (ND, X32) #1",
                "Softmax (NC, F32) #1",
                "native_call_add.out",
            ];
            let c = operator_cost(names[pick], Some(&ins), outs.as_deref());
            let negative = ins.iter().chain(outs.iter().flatten()).flatten().any(|&d| d < 0);
            if negative && outs.is_some() {
                proptest::prop_assert_eq!(c.bytes, None);
            }
            let _ = rates(c, 0.01);
        }
    }

    #[test]
    fn peak_is_validated() {
        assert_eq!(
            Peak::parse(" 150.5 , 25 ").unwrap(),
            Peak {
                gflops: 150.5,
                gbps: 25.0
            }
        );
        for bad in [
            "", "100", "100,", ",20", "0,20", "100,-1", "inf,20", "NaN,1", "a,b", "1,2,3",
        ] {
            assert!(Peak::parse(bad).is_err(), "{bad}");
        }
    }
}
