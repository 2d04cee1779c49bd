//! What an event is, decided from its structure (name form, delegate id), never from how
//! many samples it has (formats.md §3.4, pitfall 2).

/// A CpuBackend step event name `provider/implementation:first_node[+N]`, split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepName {
    pub provider: String,
    pub implementation: String,
    pub first_node: String,
    /// Number of nodes in the step (1 + N).
    pub node_count: usize,
}

/// Parse a step event name. Returns None for anything else (operators end in ` #<n>`).
pub fn parse_step_name(name: &str) -> Option<StepName> {
    if parse_operator_name(name).is_some() {
        return None;
    }
    let slash = name.find('/')?;
    let colon = slash + name[slash..].find(':')?;
    let provider = &name[..slash];
    let implementation = &name[slash + 1..colon];
    let node_part = &name[colon + 1..];
    let plain = |s: &str| !s.is_empty() && !s.chars().any(char::is_whitespace);
    if !plain(provider) || !plain(implementation) || node_part.is_empty() {
        return None;
    }
    let (first_node, extra) = match node_part.rfind('+') {
        Some(plus)
            if plus > 0
                && plus + 1 < node_part.len()
                && node_part[plus + 1..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            let extra: usize = node_part[plus + 1..].parse().ok()?;
            (&node_part[..plus], extra)
        }
        _ => (node_part, 0),
    };
    Some(StepName {
        provider: provider.to_string(),
        implementation: implementation.to_string(),
        first_node: first_node.to_string(),
        node_count: extra.checked_add(1)?,
    })
}

/// Split an XNNPACK operator event name `<operator> #<n>` into (operator, n).
pub fn parse_operator_name(name: &str) -> Option<(&str, u32)> {
    let hash = name.rfind(" #")?;
    let digits = &name[hash + 2..];
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let base = name[..hash].trim_end();
    if base.is_empty() {
        return None;
    }
    Some((base, digits.parse().ok()?))
}

/// The XNNPACK operator type of an event name: `Convolution (NHWC, F32) IGEMM #3` →
/// `Convolution (NHWC, F32) IGEMM`. Names without a numeric `#n` suffix (kernels) are
/// their own type. The one grouping rule of the explorer's `o`, the answer line
/// (`crate::summary`) and the row tree.
pub fn operator_type(name: &str) -> &str {
    match name.rsplit_once(" #") {
        Some((ty, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => ty,
        _ => name,
    }
}

/// Framework (non-delegate) event kinds inside an `Execute` block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameworkEvent {
    MethodExecute,
    DelegateCall,
    /// `OPERATOR_CALL` and the other per-instruction scopes (`JF_CALL`, `MOVE_CALL`,
    /// `FREE_CALL`).
    InstructionCall,
    /// A kernel recorded inside an instruction (`native_call_*`) or anything else named.
    Kernel,
}

pub fn classify_framework(name: &str) -> FrameworkEvent {
    match name {
        "Method::execute" => FrameworkEvent::MethodExecute,
        "DELEGATE_CALL" => FrameworkEvent::DelegateCall,
        "OPERATOR_CALL" | "JF_CALL" | "MOVE_CALL" | "FREE_CALL" => FrameworkEvent::InstructionCall,
        _ => FrameworkEvent::Kernel,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_names() {
        let s = parse_step_name("XNNPACK/subgraph:conv_1+3").unwrap();
        assert_eq!(
            (
                s.provider.as_str(),
                s.implementation.as_str(),
                s.first_node.as_str(),
                s.node_count
            ),
            ("XNNPACK", "subgraph", "conv_1", 4)
        );
        let s = parse_step_name("ET/registry:neg").unwrap();
        assert_eq!((s.first_node.as_str(), s.node_count), ("neg", 1));
        // A node name may itself contain '+' or ':' characters.
        let s = parse_step_name("REF/cpp:add+relu").unwrap();
        assert_eq!((s.first_node.as_str(), s.node_count), ("add+relu", 1));
        let s = parse_step_name("ET/registry:aten::add+2").unwrap();
        assert_eq!((s.first_node.as_str(), s.node_count), ("aten::add", 3));
        // A count that overflows is not a step name (and must not panic).
        assert_eq!(parse_step_name("X/y:z+18446744073709551615"), None);
        assert_eq!(parse_step_name("X/y:z+99999999999999999999999"), None);
    }

    #[test]
    fn not_step_names() {
        assert_eq!(parse_step_name("Convolution (NHWC, F32) IGEMM #3"), None);
        assert_eq!(parse_step_name("native_call_neg.out"), None);
        assert_eq!(parse_step_name("DELEGATE_CALL"), None);
        assert_eq!(parse_step_name("XNNPACK/subgraph:"), None);
        assert_eq!(parse_step_name("/subgraph:x"), None);
        assert_eq!(parse_step_name("Some op/thing:x"), None);
    }

    #[test]
    fn operator_names() {
        assert_eq!(
            parse_operator_name("Fully Connected (NC, F32) GEMM #12"),
            Some(("Fully Connected (NC, F32) GEMM", 12))
        );
        assert_eq!(parse_operator_name("Add (ND) #"), None);
        assert_eq!(parse_operator_name("#3"), None);
        assert_eq!(parse_operator_name("Add (ND) #x"), None);
        assert_eq!(parse_operator_name("XNNPACK/subgraph:conv_1+3"), None);
    }
}
