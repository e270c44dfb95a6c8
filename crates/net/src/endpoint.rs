//! A UDP socket on loopback that sends messages through the shim and
//! receives them through reassembly.

use crate::error::NetError;
use crate::fragment::{FragmentError, MAX_DATAGRAM, Reassembler, ReassemblyCounters, fragment};
use crate::shim::{Shim, ShimCounters, ShimDesc};
use std::io::ErrorKind;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

/// Longest a [`Endpoint::recv`] blocks in the socket while datagrams are held
/// by the shim, so they are released close to their deadline.
const HOLD_POLL: Duration = Duration::from_millis(2);

/// Parses `HOST:PORT` where HOST is a literal IPv4 loopback address
/// (`127.0.0.1`, any of 127/8) or `localhost` (taken as 127.0.0.1, without
/// a name lookup), and PORT is 1 to 65535. IPv6 loopback (`[::1]`) is
/// refused: servers bind 127.0.0.1 only, so nothing would answer there.
///
/// # Errors
/// [`NetError::BadAddress`] when it does not parse, names port 0 or IPv6
/// loopback; [`NetError::NotLoopback`] for an address off the loopback
/// interface.
///
/// ```
/// use smithereens_net::{NetError, loopback_address};
/// assert_eq!(loopback_address("localhost:4000").unwrap().port(), 4000);
/// assert!(matches!(loopback_address("[::1]:4000"), Err(NetError::BadAddress { .. })));
/// assert!(matches!(loopback_address("127.0.0.1:0"), Err(NetError::BadAddress { .. })));
/// assert!(matches!(loopback_address("10.0.0.2:4000"), Err(NetError::NotLoopback(_))));
/// assert!(matches!(loopback_address("example.com:4000"), Err(NetError::BadAddress { .. })));
/// ```
pub fn loopback_address(text: &str) -> Result<SocketAddr, NetError> {
    let bad = |reason| NetError::BadAddress {
        address: text.to_string(),
        reason,
    };
    let addr = match text.parse::<SocketAddr>() {
        Ok(a) => a,
        Err(_) => {
            // `[::1]` or `127.0.0.1` or `localhost:`: no port after the host.
            let port_missing = match text.rsplit_once(':') {
                None => true,
                Some((_, port)) => port.is_empty() || text.ends_with(']'),
            };
            if port_missing {
                return Err(bad("the port is missing (expected HOST:PORT)"));
            }
            let (host, port) = text
                .rsplit_once(':')
                .ok_or_else(|| bad("expected HOST:PORT"))?;
            let port: u16 = port
                .parse()
                .map_err(|_| bad("the port is not a number from 1 to 65535"))?;
            if !host.eq_ignore_ascii_case("localhost") {
                return Err(bad(
                    "HOST must be a literal IP address or localhost (no name lookups)",
                ));
            }
            SocketAddr::from((Ipv4Addr::LOCALHOST, port))
        }
    };
    if !addr.ip().is_loopback() {
        return Err(NetError::NotLoopback(addr));
    }
    if addr.is_ipv6() {
        return Err(bad(
            "servers bind 127.0.0.1 only: use 127.0.0.1:PORT or localhost:PORT, not IPv6 loopback",
        ));
    }
    if addr.port() == 0 {
        return Err(bad(
            "port 0 names no server (serve prints the port it listens on)",
        ));
    }
    Ok(addr)
}

/// Counts of an [`Endpoint`] besides its shim's and its reassembler's.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct EndpointCounters {
    /// Datagrams read from the socket.
    pub datagrams_received: u64,
    /// Messages handed to [`Endpoint::send`].
    pub messages_sent: u64,
    /// Datagrams the socket refused to send (counted, not retried).
    pub send_errors: u64,
    /// Receive errors other than timeouts (e.g. a port-unreachable report
    /// for a peer that went away; counted, ignored).
    pub receive_errors: u64,
}

/// A UDP socket bound on loopback with a send shim and reassembly.
#[derive(Debug)]
pub struct Endpoint {
    socket: UdpSocket,
    shim: Shim,
    reassembler: Reassembler,
    wire: Vec<(SocketAddr, Vec<u8>)>,
    buf: Vec<u8>,
    counters: EndpointCounters,
}

impl Endpoint {
    /// Binds `addr` (a loopback address; port 0 picks a free port) with a
    /// shim for everything it sends.
    ///
    /// # Errors
    /// [`NetError::NotLoopback`], [`NetError::Shim`], [`NetError::Bind`].
    pub fn bind(addr: SocketAddr, shim: ShimDesc) -> Result<Self, NetError> {
        if !addr.ip().is_loopback() {
            return Err(NetError::NotLoopback(addr));
        }
        let shim = Shim::new(shim)?;
        let socket = UdpSocket::bind(addr).map_err(|source| NetError::Bind {
            address: addr,
            source,
        })?;
        Ok(Self {
            socket,
            shim,
            reassembler: Reassembler::default(),
            wire: Vec::new(),
            // One byte more than a datagram may have: a longer one shows up
            // as a malformed fragment instead of being cut silently.
            buf: vec![0; MAX_DATAGRAM + 1],
            counters: EndpointCounters::default(),
        })
    }

    /// A loopback address of the same family as `peer`, on any free port.
    pub fn any_port_like(peer: SocketAddr) -> SocketAddr {
        let ip = match peer.ip() {
            IpAddr::V4(_) => IpAddr::V4(Ipv4Addr::LOCALHOST),
            IpAddr::V6(_) => IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        };
        SocketAddr::new(ip, 0)
    }

    /// Talks to `peer` only from now on: datagrams from anyone else are
    /// dropped by the system, and the system's reports that `peer` refused
    /// a datagram (nothing listens there) show up as
    /// [`EndpointCounters::receive_errors`] (an unconnected socket on Linux
    /// never sees them).
    ///
    /// # Errors
    /// [`NetError::Io`].
    pub fn connect(&mut self, peer: SocketAddr) -> Result<(), NetError> {
        self.socket.connect(peer).map_err(|source| NetError::Io {
            what: "connect",
            source,
        })
    }

    /// The bound address.
    ///
    /// # Errors
    /// [`NetError::Io`].
    pub fn local_addr(&self) -> Result<SocketAddr, NetError> {
        self.socket.local_addr().map_err(|source| NetError::Io {
            what: "local address",
            source,
        })
    }

    /// Its shim's counters.
    pub fn shim_counters(&self) -> ShimCounters {
        self.shim.counters()
    }

    /// Its reassembler's counters (`malformed` counts refused datagrams).
    pub fn reassembly_counters(&self) -> ReassemblyCounters {
        self.reassembler.counters()
    }

    /// Its own counters.
    pub fn counters(&self) -> EndpointCounters {
        self.counters
    }

    /// Sends one message to `to`: fragments, then the shim decides each
    /// datagram's fate. Socket errors are counted, never fatal (UDP gives no
    /// delivery guarantee anyway).
    ///
    /// # Errors
    /// [`FragmentError::TooLarge`] for an empty message or one over
    /// [`crate::fragment::MAX_MESSAGE`] bytes (nothing is sent).
    pub fn send(&mut self, to: SocketAddr, message: &[u8]) -> Result<(), FragmentError> {
        let datagrams = fragment(message)?;
        self.counters.messages_sent += 1;
        let now = Instant::now();
        for d in datagrams {
            self.shim.push(to, d, now, &mut self.wire);
        }
        self.flush();
        Ok(())
    }

    fn flush(&mut self) {
        for (to, d) in self.wire.drain(..) {
            if self.socket.send_to(&d, to).is_err() {
                self.counters.send_errors += 1;
            }
        }
    }

    /// Waits until `until` for the next complete message. Malformed
    /// datagrams are counted and skipped; held datagrams of the shim are
    /// released on time meanwhile.
    ///
    /// # Errors
    /// [`NetError::Io`] when the socket's timeout cannot be set.
    pub fn recv(&mut self, until: Instant) -> Result<Option<(SocketAddr, Vec<u8>)>, NetError> {
        loop {
            let now = Instant::now();
            self.shim.release_due(now, &mut self.wire);
            self.flush();
            if now >= until {
                return Ok(None);
            }
            let mut wait = until - now;
            if self.shim.held() > 0 {
                wait = wait.min(HOLD_POLL);
            }
            // A zero timeout means "block forever" to the socket.
            let wait = wait.max(Duration::from_micros(100));
            self.socket
                .set_read_timeout(Some(wait))
                .map_err(|source| NetError::Io {
                    what: "set read timeout",
                    source,
                })?;
            match self.socket.recv_from(&mut self.buf) {
                Ok((n, from)) => {
                    self.counters.datagrams_received += 1;
                    if let Ok(Some(message)) = self.reassembler.push(from, &self.buf[..n]) {
                        return Ok(Some((from, message)));
                    }
                }
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(_) => self.counters.receive_errors += 1,
            }
        }
    }

    /// Releases every datagram the shim still holds (before closing).
    pub fn release_held(&mut self) {
        self.shim.release_all(&mut self.wire);
        self.flush();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_addresses_are_accepted() {
        assert_eq!(
            loopback_address("127.0.0.1:5000").unwrap(),
            SocketAddr::from(([127, 0, 0, 1], 5000))
        );
        assert!(loopback_address("127.3.4.5:1").is_ok(), "all of 127/8");
        for (text, not_loopback) in [
            ("0.0.0.0:5000", true),
            ("192.168.1.2:5000", true),
            ("[2001:db8::1]:5000", true),
            ("localhost", false),
            ("localhost:http", false),
            ("127.0.0.1:70000", false),
            ("my-host:5000", false),
            ("", false),
        ] {
            match loopback_address(text) {
                Err(NetError::NotLoopback(_)) => assert!(not_loopback, "{text}"),
                Err(NetError::BadAddress { .. }) => assert!(!not_loopback, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
        for (text, reason) in [
            ("[::1]", "the port is missing"),
            ("127.0.0.1", "the port is missing"),
            ("localhost:", "the port is missing"),
            ("127.0.0.1:0", "port 0"),
            ("localhost:0", "port 0"),
            ("[::1]:5000", "127.0.0.1 only"),
        ] {
            match loopback_address(text) {
                Err(e @ NetError::BadAddress { .. }) => {
                    assert!(e.to_string().contains(reason), "{text}: {e}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        let shim = ShimDesc::default();
        assert!(matches!(
            Endpoint::bind(SocketAddr::from(([0, 0, 0, 0], 0)), shim),
            Err(NetError::NotLoopback(_))
        ));
    }

    #[test]
    fn a_large_message_crosses_a_lossy_loopback_link_when_repeated() {
        let shim = ShimDesc {
            loss: 0.3,
            duplicate: 0.1,
            reorder: 0.1,
            seed: 21,
            ..ShimDesc::default()
        };
        let any = SocketAddr::from(([127, 0, 0, 1], 0));
        let mut a = Endpoint::bind(any, shim).unwrap();
        let mut b = Endpoint::bind(any, ShimDesc::default()).unwrap();
        let to = b.local_addr().unwrap();
        let message: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 256) as u8).collect();
        let mut got = None;
        for _ in 0..40 {
            a.send(to, &message).unwrap();
            a.release_held();
            let until = Instant::now() + Duration::from_millis(20);
            if let Some((from, m)) = b.recv(until).unwrap() {
                assert_eq!(from, a.local_addr().unwrap());
                got = Some(m);
                break;
            }
        }
        assert_eq!(got, Some(message));
        let c = a.shim_counters();
        assert!(c.dropped > 0, "{c:?}");
        // Garbage to b is counted and skipped.
        a.socket.send_to(b"not a datagram", to).unwrap();
        assert_eq!(
            b.recv(Instant::now() + Duration::from_millis(50)).unwrap(),
            None
        );
        assert!(b.reassembly_counters().malformed >= 1);
    }
}
