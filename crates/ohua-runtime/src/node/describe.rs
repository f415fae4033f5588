//! Text snapshots of operator ports for stall diagnostics.

/// `in[..] out[..]` for a list of input and output ports.
pub(crate) fn ports(ins: &[String], outs: &[String]) -> String {
    format!("in[{}] out[{}]", ins.join(", "), outs.join(", "))
}
