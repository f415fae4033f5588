//! Where the view listens: loopback unless explicitly allowed otherwise.
//!
//! The view shows the algorithm's structure, its operators' code and its
//! load: nothing another host should see by accident. So an address other
//! hosts can reach is refused unless the caller opts in.

use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};

use crate::ViewError;

/// An address to serve the view on, checked against the loopback rule.
///
/// # Example
///
/// ```
/// use ohua_view::Bind;
/// assert_eq!(Bind::parse("8080").unwrap().addr().to_string(), "127.0.0.1:8080");
/// assert_eq!(Bind::parse("localhost:0").unwrap().addr().ip().is_loopback(), true);
/// assert!(Bind::parse("0.0.0.0:8080").is_err(), "reachable from other hosts");
/// assert!(Bind::public("0.0.0.0:8080").is_ok(), "when asked for explicitly");
/// assert!(Bind::parse("127.0.0.1:http").is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bind(SocketAddr);

impl Bind {
    /// A loopback address: `PORT`, `HOST:PORT` or `[V6]:PORT`, where the
    /// host resolves to a loopback address. Port 0 picks a free port.
    ///
    /// # Errors
    ///
    /// [`ViewError::BadAddress`] if it does not parse or resolve;
    /// [`ViewError::NotLoopback`] if other hosts could reach it.
    pub fn parse(given: &str) -> Result<Bind, ViewError> {
        let addr = resolve(given)?;
        if addr.ip().is_loopback() {
            Ok(Bind(addr))
        } else {
            Err(ViewError::NotLoopback { addr })
        }
    }

    /// Any address, loopback or not: the caller opted in.
    ///
    /// # Errors
    ///
    /// [`ViewError::BadAddress`] if it does not parse or resolve.
    pub fn public(given: &str) -> Result<Bind, ViewError> {
        resolve(given).map(Bind)
    }

    /// The address.
    pub fn addr(&self) -> SocketAddr {
        self.0
    }
}

fn resolve(given: &str) -> Result<SocketAddr, ViewError> {
    let bad = |why: String| ViewError::BadAddress { given: given.to_string(), why };
    let trimmed = given.trim();
    if trimmed.is_empty() {
        return Err(bad("it is empty".into()));
    }
    if let Ok(port) = trimmed.parse::<u16>() {
        return Ok(SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), port));
    }
    if let Ok(addr) = trimmed.parse::<SocketAddr>() {
        return Ok(addr);
    }
    let Some((host, port)) = trimmed.rsplit_once(':') else {
        return Err(bad("no port".into()));
    };
    let port: u16 = port.parse().map_err(|_| bad(format!("`{port}` is not a port number")))?;
    let mut found = (host, port).to_socket_addrs().map_err(|e| bad(e.to_string()))?;
    // Of the host's addresses, a loopback one if there is one: `localhost`
    // may resolve to `::1` and `127.0.0.1`.
    let all: Vec<SocketAddr> = found.by_ref().collect();
    all.iter()
        .find(|a| a.ip().is_loopback())
        .or(all.first())
        .copied()
        .ok_or_else(|| bad(format!("`{host}` resolves to no address")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_alone_means_loopback() {
        assert_eq!(Bind::parse(" 9000 ").unwrap().addr(), "127.0.0.1:9000".parse().unwrap());
    }

    #[test]
    fn ipv6_loopback_is_loopback_and_unspecified_is_not() {
        assert!(Bind::parse("[::1]:9000").is_ok());
        let err = Bind::parse("[::]:9000").unwrap_err();
        assert!(matches!(err, ViewError::NotLoopback { .. }), "{err}");
        assert!(err.to_string().contains("OHUA_VIEW_PUBLIC=1"), "the message says how to opt in: {err}");
    }

    #[test]
    fn bad_addresses_say_what_is_wrong() {
        for (given, says) in [("", "empty"), ("127.0.0.1", "no port"), ("127.0.0.1:99999", "not a port")] {
            let err = Bind::parse(given).unwrap_err().to_string();
            assert!(err.contains(says), "{given:?}: {err}");
        }
    }
}
