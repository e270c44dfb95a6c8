//! What server and receivers say to each other: one [`Packet`] per message,
//! framed and checksummed by [`smithereens_core::codec`] (magic `SMNP`),
//! then cut into datagrams ([`crate::fragment`]).

use serde::{Deserialize, Serialize};
use smithereens_core::Instance;
use smithereens_core::codec::{self, FrameError};
use smithereens_core::instance::InstanceId;

/// Magic of an encoded [`Packet`].
pub const PACKET_MAGIC: [u8; 4] = *b"SMNP";
/// Format version of an encoded [`Packet`].
pub const PACKET_VERSION: u16 = 1;

/// One message between a server and a receiver.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Packet {
    /// Receiver → server: "let me in" (repeated until a [`Packet::Welcome`] arrives).
    Hello,
    /// Server → receiver: what to build (answer to every hello, always the
    /// same bytes, so repeated welcomes combine their fragments).
    Welcome(Welcome),
    /// Either way: an encoded [`smithereens_core::Message`] (server →
    /// receiver: commits and snapshots; receiver → server: snapshot requests).
    Replication(Vec<u8>),
    /// Server → receivers, periodically: the latest commit sequence of
    /// every instance (the heartbeats), and whether the run is over.
    Status(Status),
    /// Receiver → server, periodically once it is replicating: it is alive.
    Keepalive,
    /// Receiver → server: it reached the final state and leaves.
    Bye,
    /// Server → receiver: the bye was heard.
    ByeAck,
    /// Server → receiver, answering a hello: the server already serves its
    /// most receivers (the cap); the receiver gives up at once.
    Full {
        /// The server's receiver cap.
        max: u32,
    },
}

/// What a receiver needs to build the server's instances.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Welcome {
    /// The scenario as run (TOML text).
    pub scenario: String,
    /// Folder for relative paths inside it (absolute; receivers run on the
    /// same machine).
    pub scenario_dir: String,
    /// The instances, in scenario order.
    pub instances: Vec<WelcomeInstance>,
}

impl Welcome {
    /// The welcome for `instances` (their ids and asset fingerprints, in
    /// this order), built from the scenario text `scenario` whose relative
    /// paths start at `scenario_dir`.
    pub fn new(scenario: String, scenario_dir: String, instances: &[Instance]) -> Self {
        Self {
            scenario,
            scenario_dir,
            instances: instances
                .iter()
                .map(|i| WelcomeInstance {
                    id: i.id(),
                    asset: i.asset().fingerprint(),
                })
                .collect(),
        }
    }
}

/// One replicated instance.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WelcomeInstance {
    /// Its id.
    pub id: InstanceId,
    /// Its asset's fingerprint ([`smithereens_core::Asset::fingerprint`]).
    pub asset: u64,
}

/// The server's periodic status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Status {
    /// Counts the statuses sent (so consecutive ones differ).
    pub tick: u64,
    /// The run is over: `instances` hold the final sequences.
    pub finished: bool,
    /// Latest commit sequence of every instance, in scenario order.
    pub instances: Vec<(InstanceId, u64)>,
}

impl Packet {
    /// Encodes the packet (framed, checksummed, deterministic).
    pub fn to_bytes(&self) -> Vec<u8> {
        // Only a payload over 4 GiB could fail.
        codec::encode(PACKET_MAGIC, PACKET_VERSION, self).unwrap_or_default()
    }

    /// Decodes a packet.
    ///
    /// # Errors
    /// [`FrameError`] for truncated, corrupt or foreign bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FrameError> {
        codec::decode(PACKET_MAGIC, PACKET_VERSION, bytes)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn packets_round_trip_and_garbage_is_a_typed_error() {
        let packets = [
            Packet::Hello,
            Packet::Welcome(Welcome {
                scenario: "name = \"x\"".into(),
                scenario_dir: "/tmp".into(),
                instances: vec![WelcomeInstance {
                    id: InstanceId(3),
                    asset: 0xfeed,
                }],
            }),
            Packet::Replication(vec![1, 2, 3]),
            Packet::Status(Status {
                tick: 9,
                finished: true,
                instances: vec![(InstanceId(0), 12)],
            }),
            Packet::Keepalive,
            Packet::Bye,
            Packet::ByeAck,
            Packet::Full { max: 256 },
        ];
        for p in packets {
            let bytes = p.to_bytes();
            assert_eq!(Packet::from_bytes(&bytes), Ok(p));
            for cut in 0..bytes.len() {
                assert!(Packet::from_bytes(&bytes[..cut]).is_err());
            }
        }
        assert!(Packet::from_bytes(b"SMNP but not really").is_err());
    }
}
