//! Text snapshots of operator ports for stall diagnostics.

/// `in[..] out[..]` for a list of input and output ports.
pub(crate) fn ports(ins: &[String], outs: &[String]) -> String {
    format!("in[{}] out[{}]", ins.join(", "), outs.join(", "))
}

/// A call's ports, with its sticky inputs if it has any.
pub(crate) fn call(ins: Vec<String>, outs: Vec<String>, sticky: Vec<String>) -> String {
    let base = ports(&ins, &outs);
    if sticky.is_empty() {
        base
    } else {
        format!("{base} sticky[{}]", sticky.join("; "))
    }
}
