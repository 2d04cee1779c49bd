//! Program reader: an ExecuTorch `.pte` (a flatbuffer with file identifier `ET12`) ->
//! each method's name and instruction list (kernel calls by operator name, delegate calls
//! by backend id), in order. Verified with the flatbuffers verifier before anything is
//! read; no statistics here (matching run groups to methods is `crate::profile::source`).

/// flatc output for `assets/schema/program.fbs`; not a stable API.
#[allow(
    clippy::all,
    unused_imports,
    dead_code,
    non_camel_case_types,
    mismatched_lifetime_syntaxes
)]
#[rustfmt::skip]
#[doc(hidden)]
pub mod generated;

use generated::program as fb;

/// Why a program cannot be read. Display is one line (the caller names the file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProgramError {
    #[error("not an ExecuTorch program: {0}")]
    NotProgram(String),
    #[error("damaged ExecuTorch program: {0}")]
    Damaged(String),
}

/// One instruction of a method's chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Instruction {
    /// A kernel call: the operator (`aten::addmm`) and its overload (`out`).
    Kernel {
        operator: String,
        overload: String,
    },
    /// A call of delegate `index` of the method, run by `backend` (`XnnpackBackend`).
    Delegate {
        index: usize,
        backend: String,
    },
    Move,
    JumpFalse,
    Free,
    /// An instruction kind this reader does not know (a newer schema).
    Unknown,
}

impl Instruction {
    /// Whether an ETDump kernel event name (`native_call_addmm.out`) is this kernel's: the
    /// runtime's generated kernels name the event after the operator without its
    /// namespace (`aten::addmm` -> `native_call_addmm.out`,
    /// `dim_order_ops::_to_dim_order_copy` -> `native_call__to_dim_order_copy.out`), so
    /// names are compared modulo the namespace (a name that keeps one still matches).
    pub fn is_kernel_event(&self, event: &str) -> bool {
        let Instruction::Kernel { operator, overload } = self else {
            return false;
        };
        let Some(rest) = event.strip_prefix("native_call_") else {
            return false;
        };
        let (name, ovl) = match rest.rsplit_once('.') {
            Some((n, o)) => (n, o),
            None => (rest, ""),
        };
        ovl == overload && without_namespace(name) == without_namespace(operator)
    }

    /// `aten::addmm.out`, `delegate XnnpackBackend`, ...
    pub fn label(&self) -> String {
        match self {
            Instruction::Kernel { operator, overload } if overload.is_empty() => operator.clone(),
            Instruction::Kernel { operator, overload } => format!("{operator}.{overload}"),
            Instruction::Delegate { backend, .. } => format!("delegate {backend}"),
            Instruction::Move => "move".into(),
            Instruction::JumpFalse => "jump_false".into(),
            Instruction::Free => "free".into(),
            Instruction::Unknown => "unknown".into(),
        }
    }
}

/// An operator name without its namespace (`aten::addmm` -> `addmm`).
fn without_namespace(operator: &str) -> &str {
    operator
        .rsplit_once("::")
        .map_or(operator, |(_, name)| name)
}

/// One method (execution plan) of the program.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodPlan {
    pub name: String,
    /// The instructions of the method's first chain, by instruction id (every program the
    /// runtime writes today has one chain).
    pub instructions: Vec<Instruction>,
    /// Chains after the first (not read further).
    pub other_chains: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub version: u32,
    pub methods: Vec<MethodPlan>,
}

/// Decode a `.pte` from its bytes (read once through [`crate::input`]).
pub fn parse(bytes: &[u8]) -> Result<Program, ProgramError> {
    if bytes.len() < 8 {
        return Err(ProgramError::NotProgram(format!(
            "{} bytes, too short for a flatbuffer",
            bytes.len()
        )));
    }
    if &bytes[4..8] == b"BP08" {
        // A bundled program (`.bpte`): the program it holds.
        let inner = bundled_program_bytes(bytes)?;
        if inner.get(4..8) == Some(b"BP08") {
            return Err(ProgramError::Damaged(
                "a bundled program inside a bundled program".into(),
            ));
        }
        return parse(inner);
    }
    if &bytes[4..8] != b"ET12" {
        let what = if &bytes[4..8] == b"ED00" || bytes.get(8..12) == Some(b"ED00") {
            "this is an ETDump (ED00), not a program".to_string()
        } else if bytes.starts_with(b"PK") {
            "this is a zip (an ETRecord?), not a program".to_string()
        } else {
            "no ET12 file identifier at byte 4".to_string()
        };
        return Err(ProgramError::NotProgram(what));
    }
    let bytes = &bytes[..program_end(bytes)?];
    let opts = flatbuffers::VerifierOptions {
        max_depth: 64,
        max_tables: bytes.len() / 4 + 1024,
        max_apparent_size: bytes.len().max(1 << 20),
        ignore_missing_null_terminator: false,
    };
    let root = fb::root_as_program_with_opts(&opts, bytes)
        .map_err(|e| ProgramError::Damaged(crate::escape::message_line(&e.to_string())))?;
    let mut methods = Vec::new();
    for plan in root.execution_plan().iter().flatten() {
        let name = plan.name().unwrap_or("").to_string();
        let operators: Vec<(String, String)> = plan
            .operators()
            .iter()
            .flatten()
            .map(|o| {
                (
                    o.name().unwrap_or("").to_string(),
                    o.overload().unwrap_or("").to_string(),
                )
            })
            .collect();
        let delegates: Vec<String> = plan
            .delegates()
            .iter()
            .flatten()
            .map(|d| d.id().unwrap_or("").to_string())
            .collect();
        let chains = plan.chains();
        let mut instructions = Vec::new();
        if let Some(first) = chains.iter().flatten().next() {
            for (i, ins) in first.instructions().iter().flatten().enumerate() {
                instructions.push(instruction(&ins, &operators, &delegates).map_err(|e| {
                    ProgramError::Damaged(format!("method {name:?}, instruction {i}: {e}"))
                })?);
            }
        }
        methods.push(MethodPlan {
            name,
            instructions,
            other_chains: chains.map_or(0, |c| c.len().saturating_sub(1)),
        });
    }
    if methods.is_empty() {
        return Err(ProgramError::Damaged("the program has no method".into()));
    }
    Ok(Program {
        version: root.version(),
        methods,
    })
}

/// The `program` bytes of a bundled program (`BundledProgram` of
/// `bundled_program_schema.fbs`: `version`, `method_test_suites`, `program: [ubyte]`),
/// every offset checked against the file.
fn bundled_program_bytes(bytes: &[u8]) -> Result<&[u8], ProgramError> {
    let bad = |what: &str| ProgramError::Damaged(format!("bundled program: {what}"));
    let u32_at = |at: usize| {
        bytes
            .get(at..at.checked_add(4)?)
            .map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    };
    let u16_at = |at: usize| {
        bytes
            .get(at..at.checked_add(2)?)
            .map(|b| u16::from_le_bytes(b.try_into().expect("2 bytes")))
    };
    let table = u32_at(0).ok_or_else(|| bad("no root"))? as usize;
    let soffset = u32_at(table).ok_or_else(|| bad("root table outside the file"))? as i32;
    let vtable = (table as i64 - soffset as i64) as usize;
    let vt_len = u16_at(vtable).ok_or_else(|| bad("vtable outside the file"))? as usize;
    // Field 2 (`program`): its slot at vtable + 4 + 2 * 2.
    const SLOT: usize = 4 + 2 * 2;
    if vt_len < SLOT + 2 {
        return Err(bad("holds no program"));
    }
    let field = u16_at(vtable + SLOT).ok_or_else(|| bad("vtable outside the file"))? as usize;
    if field == 0 {
        return Err(bad("holds no program"));
    }
    let at = table + field;
    let vector = at + u32_at(at).ok_or_else(|| bad("program field outside the file"))? as usize;
    let len = u32_at(vector).ok_or_else(|| bad("program outside the file"))? as usize;
    bytes
        .get(vector + 4..(vector + 4).saturating_add(len))
        .ok_or_else(|| bad("program cut short"))
}

/// Where the flatbuffer ends, from the extended header (`eh00` at byte 8: its length,
/// the program size, the offset and size of the segments that follow), which also says
/// whether the file was cut short; the whole file when there is no header.
fn program_end(bytes: &[u8]) -> Result<usize, ProgramError> {
    if bytes.get(8..12) != Some(b"eh00") {
        return Ok(bytes.len());
    }
    let u32_at = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
    };
    let u64_at = |at: usize| {
        bytes
            .get(at..at + 8)
            .map(|b| u64::from_le_bytes(b.try_into().unwrap()))
    };
    let cut = |what: String| {
        ProgramError::Damaged(format!(
            "cut short: {what}, the file has {} bytes",
            bytes.len()
        ))
    };
    let header_len = u32_at(12).ok_or_else(|| cut("the extended header".into()))? as usize;
    if header_len < 24 {
        return Err(ProgramError::Damaged(format!(
            "extended header of {header_len} bytes, fewer than 24"
        )));
    }
    let program_size = u64_at(16).ok_or_else(|| cut("the extended header".into()))?;
    let segment_base = u64_at(24).ok_or_else(|| cut("the extended header".into()))?;
    if program_size > bytes.len() as u64 {
        return Err(cut(format!("the program is {program_size} bytes")));
    }
    if header_len >= 32 {
        let segment_size = u64_at(32).ok_or_else(|| cut("the extended header".into()))?;
        let end = segment_base.saturating_add(segment_size);
        if segment_size > 0 && end > bytes.len() as u64 {
            return Err(cut(format!("its segments end at byte {end}")));
        }
    }
    Ok(program_size as usize)
}

fn instruction(
    ins: &fb::Instruction<'_>,
    operators: &[(String, String)],
    delegates: &[String],
) -> Result<Instruction, String> {
    use fb::InstructionArguments as A;
    Ok(match ins.instr_args_type() {
        A::KernelCall => {
            let call = ins
                .instr_args_as_kernel_call()
                .ok_or("kernel call without its table")?;
            let i = call.op_index();
            let (operator, overload) = usize::try_from(i)
                .ok()
                .and_then(|i| operators.get(i))
                .ok_or_else(|| {
                    format!(
                        "operator index {i} is outside the {} operators",
                        operators.len()
                    )
                })?;
            Instruction::Kernel {
                operator: operator.clone(),
                overload: overload.clone(),
            }
        }
        A::DelegateCall => {
            let call = ins
                .instr_args_as_delegate_call()
                .ok_or("delegate call without its table")?;
            let i = call.delegate_index();
            let index = usize::try_from(i)
                .ok()
                .filter(|&i| i < delegates.len())
                .ok_or_else(|| {
                    format!(
                        "delegate index {i} is outside the {} delegates",
                        delegates.len()
                    )
                })?;
            Instruction::Delegate {
                index,
                backend: delegates[index].clone(),
            }
        }
        A::MoveCall => Instruction::Move,
        A::JumpFalseCall => Instruction::JumpFalse,
        A::FreeCall => Instruction::Free,
        _ => Instruction::Unknown,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_event_names_follow_the_runtime() {
        let k = Instruction::Kernel {
            operator: "aten::addmm".into(),
            overload: "out".into(),
        };
        assert!(k.is_kernel_event("native_call_addmm.out"));
        assert!(k.is_kernel_event("native_call_aten::addmm.out"));
        assert!(!k.is_kernel_event("native_call_addmm.Scalar_out"));
        assert!(!k.is_kernel_event("native_call_mm.out"));
        assert!(!k.is_kernel_event("OPERATOR_CALL"));
        let custom = Instruction::Kernel {
            operator: "llama::sdpa".into(),
            overload: "out".into(),
        };
        assert!(custom.is_kernel_event("native_call_llama::sdpa.out"));
        assert!(custom.is_kernel_event("native_call_sdpa.out"));
        assert!(!custom.is_kernel_event("native_call_sdpa.default"));
        // fixtures/wild/attn_dimorder: instruction 22 of the program and its dump event.
        let dim_order = Instruction::Kernel {
            operator: "dim_order_ops::_to_dim_order_copy".into(),
            overload: "out".into(),
        };
        assert!(dim_order.is_kernel_event("native_call__to_dim_order_copy.out"));
        assert!(!dim_order.is_kernel_event("native_call_to_dim_order_copy.out"));
    }

    #[test]
    fn not_a_program_says_what_it_is() {
        assert!(parse(b"").unwrap_err().to_string().contains("too short"));
        let mut zip = b"PK\x03\x04".to_vec();
        zip.extend([0; 12]);
        assert!(parse(&zip).unwrap_err().to_string().contains("zip"));
        let mut other = vec![0u8; 32];
        other[4..8].copy_from_slice(b"XXXX");
        assert!(parse(&other).unwrap_err().to_string().contains("ET12"));
    }

    /// A bundled program is its embedded program; every cut and a flood of bad offsets
    /// is an error, never a panic.
    #[test]
    fn a_bundled_program_is_read_through_and_damage_is_an_error() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
            .join("fixtures/etrecord");
        let bpte = std::fs::read(dir.join("attention_mask.bpte")).unwrap();
        let pte = std::fs::read(dir.join("attention_mask.pte")).unwrap();
        assert_eq!(parse(&bpte).unwrap(), parse(&pte).unwrap());
        // The embedded program is the .pte's bytes: a cut into it is an error; the test
        // suites after it are not read.
        let at = bpte.windows(pte.len()).position(|w| w == pte).unwrap();
        for cut in (8..bpte.len()).step_by(97) {
            assert_eq!(
                parse(&bpte[..cut]).is_err(),
                cut < at + pte.len(),
                "cut at {cut}"
            );
        }
        for at in (0..64).chain((64..bpte.len()).step_by(13)) {
            let mut b = bpte.clone();
            b[at] ^= 0xff;
            let _ = parse(&b);
        }
    }
}
