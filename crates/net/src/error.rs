//! Errors of the replication transport, server and receiver.

use smithereens_core::instance::InstanceId;
use std::net::SocketAddr;

/// Why a replication endpoint could not start or finish.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NetError {
    /// An address that is not `HOST:PORT` with a literal IP (or `localhost`).
    #[error("bad address {address:?}: {reason}")]
    BadAddress {
        /// As given.
        address: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An address off the loopback interface: replication here never leaves
    /// the machine.
    #[error("{0} is not a loopback address (replication binds and talks to 127.0.0.1 only)")]
    NotLoopback(SocketAddr),
    /// The socket could not be bound.
    #[error("cannot bind UDP {address}")]
    Bind {
        /// The address.
        address: SocketAddr,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A socket operation failed.
    #[error("UDP socket: {what}")]
    Io {
        /// The operation.
        what: &'static str,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// Bad shim settings.
    #[error("shim settings")]
    Shim(#[from] crate::shim::ShimError),
    /// The receiver's instances are not the server's: another count or
    /// order of instances.
    #[error("the scenario gives {found} instances, the server replicates {expected}")]
    InstanceCount {
        /// The server's.
        expected: usize,
        /// The receiver's.
        found: usize,
    },
    /// The receiver built instance `position` with another id than the server's.
    #[error("instance {position} is {found} here, {expected} on the server")]
    InstanceId {
        /// Position in the scenario.
        position: usize,
        /// The server's.
        expected: InstanceId,
        /// The receiver's.
        found: InstanceId,
    },
    /// The receiver built another asset than the server's (another engine
    /// version, or the scenario's files differ).
    #[error(
        "{instance}: asset fingerprint {found:#018x} here, {expected:#018x} on the server (another build, or different scenario files)"
    )]
    AssetMismatch {
        /// The instance.
        instance: InstanceId,
        /// The server's fingerprint.
        expected: u64,
        /// The receiver's.
        found: u64,
    },
    /// Nothing more came in time.
    #[error("timed out after {seconds:.1} s {what}")]
    Timeout {
        /// Seconds waited.
        seconds: f64,
        /// What was awaited, and the state reached.
        what: String,
    },
    /// The server answered the hello with a refusal: it serves its most
    /// receivers already ([`crate::ServerDesc::max_receivers`]).
    #[error("the server at {server} is full ({max} receivers); try again once some have left")]
    ServerFull {
        /// The server.
        server: SocketAddr,
        /// Its receiver cap.
        max: u32,
    },
    /// Hellos were refused by the system (nothing listens on that port)
    /// before any welcome came.
    #[error("{refused} hellos to {server} were refused: is a server listening on {server}?")]
    Refused {
        /// The server address.
        server: SocketAddr,
        /// Refusals counted.
        refused: u64,
    },
    /// Nothing came from the server for [`crate::ReceiverDesc::server_silence`]
    /// after its welcome (it was killed, or lost its way).
    #[error("the server at {server} fell silent {seconds:.1} s ago (last heard: {last_heard})")]
    ServerSilent {
        /// The server.
        server: SocketAddr,
        /// Seconds since anything came from it.
        seconds: f64,
        /// What it said last, and the replicas' state.
        last_heard: String,
    },
}
