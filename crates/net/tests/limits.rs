//! Limits of the protocol over real sockets: huge durations mean "never"
//! (no panic), a full receiver table refuses a hello at once and frees the
//! slots of receivers that fell silent, and a receiver whose server fell
//! silent gives up with a typed error.

#![allow(clippy::unwrap_used)]

mod common;

use common::{instances, welcome_of};
use smithereens_core::fixtures::grid_desc;
use smithereens_core::{Asset, EventId, HeadlessBackend, Instance, RadialDamage};
use smithereens_net::{NetError, Packet, ReceiverDesc, Server, ServerDesc, join};
use std::net::UdpSocket;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Moves every instance of the authority on (commit sequence > 0) and
/// broadcasts the records.
fn damage(authority: &mut [Instance], server: &mut Server) {
    for (k, inst) in authority.iter_mut().enumerate() {
        inst.admit(RadialDamage {
            id: EventId(k as u64 + 1),
            point: smithereens_core::glam::Vec3::splat(0.75),
            radius: 0.8,
            damage: 150.0,
            impulse: None,
        })
        .unwrap();
        let out = inst.commit(&mut HeadlessBackend::default()).unwrap();
        server.broadcast_commit(&out.record.unwrap());
        assert!(inst.commit_seq() > 0);
    }
}

type Outcome = Result<Vec<(u64, u64)>, NetError>;

fn spawn_receiver(asset: &Arc<Asset>, desc: ReceiverDesc) -> JoinHandle<Outcome> {
    let asset = asset.clone();
    std::thread::spawn(move || {
        let mut r = join(desc)?.start(instances(&asset))?;
        r.run(&mut |_| {})?;
        Ok(r.instances()
            .map(|i| (i.commit_seq(), i.replicated_hash()))
            .collect())
    })
}

/// Serves until the receiver thread ends (at most 30 s).
fn serve_until_done(
    server: &mut Server,
    authority: &Vec<Instance>,
    receiver: JoinHandle<Outcome>,
) -> Outcome {
    let end = Instant::now() + Duration::from_secs(30);
    while !receiver.is_finished() {
        assert!(Instant::now() < end, "the receiver did not end");
        server
            .poll_until(Instant::now() + Duration::from_millis(10), authority)
            .unwrap();
    }
    receiver.join().unwrap()
}

fn finals(authority: &[Instance]) -> Vec<(u64, u64)> {
    authority
        .iter()
        .map(|i| (i.commit_seq(), i.replicated_hash()))
        .collect()
}

#[test]
fn duration_max_everywhere_means_never_and_does_not_panic() {
    let asset = Arc::new(Asset::new(&grid_desc(3, 3, 3, 0.5, 2000.0, 40.0)).unwrap());
    let mut authority = instances(&asset);
    let welcome = welcome_of(&authority);
    // A server whose statuses are due "never" polls without panicking.
    let mut quiet = Server::bind(
        ServerDesc {
            status_interval: Duration::MAX,
            silent_after: Duration::MAX,
            snapshot_reuse: Duration::MAX,
            ..ServerDesc::default()
        },
        &welcome,
    )
    .unwrap();
    quiet
        .poll_until(Instant::now() + Duration::from_millis(20), &authority)
        .unwrap();
    let mut server = Server::bind(
        ServerDesc {
            silent_after: Duration::MAX,
            snapshot_reuse: Duration::MAX,
            ..ServerDesc::default()
        },
        &welcome,
    )
    .unwrap();
    damage(&mut authority, &mut server);
    server.finish();
    let desc = ReceiverDesc {
        timeout: Duration::MAX,
        keepalive_interval: Duration::MAX,
        bye_wait: Duration::MAX,
        server_silence: Duration::MAX,
        ..ReceiverDesc::new(server.local_addr().unwrap())
    };
    let got = serve_until_done(&mut server, &authority, spawn_receiver(&asset, desc)).unwrap();
    assert_eq!(got, finals(&authority));
    // Hellos to a port nobody listens on, with no timeout: refused early.
    let nobody = UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let t = Instant::now();
    let err = join(ReceiverDesc {
        timeout: Duration::MAX,
        retry_interval: Duration::from_millis(10),
        ..ReceiverDesc::new(nobody)
    })
    .unwrap_err();
    assert!(matches!(err, NetError::Refused { .. }), "{err}");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
}

#[test]
fn a_full_table_refuses_a_hello_at_once_and_frees_the_slots_of_silent_receivers() {
    let asset = Arc::new(Asset::new(&grid_desc(3, 3, 3, 0.5, 2000.0, 40.0)).unwrap());
    let mut authority = instances(&asset);
    let silent_after = Duration::from_millis(800);
    let mut server = Server::bind(
        ServerDesc {
            silent_after,
            ..ServerDesc::default()
        },
        &welcome_of(&authority),
    )
    .unwrap();
    damage(&mut authority, &mut server);
    server.finish();
    let addr = server.local_addr().unwrap();
    // 300 fake peers say hello once each, then stay silent (sockets open).
    let hello = smithereens_net::fragment::fragment(&Packet::Hello.to_bytes()).unwrap();
    let fakes: Vec<UdpSocket> = (0..300)
        .map(|_| UdpSocket::bind("127.0.0.1:0").unwrap())
        .collect();
    // In batches, so the server's socket buffer never overflows.
    for batch in fakes.chunks(20) {
        for f in batch {
            for d in &hello {
                f.send_to(d, addr).unwrap();
            }
        }
        server
            .poll_until(Instant::now() + Duration::from_millis(5), &authority)
            .unwrap();
    }
    let t = Instant::now();
    while server.receiver_count() < 256 || server.counters().refused < 44 {
        assert!(
            t.elapsed() < Duration::from_millis(500),
            "hellos not heard: {} receivers, {:?}",
            server.receiver_count(),
            server.counters()
        );
        server
            .poll_until(Instant::now() + Duration::from_millis(10), &authority)
            .unwrap();
    }
    assert_eq!(server.receiver_count(), 256);
    // A real receiver now is refused at once, with a typed error.
    let desc = ReceiverDesc {
        timeout: Duration::from_secs(20),
        ..ReceiverDesc::new(addr)
    };
    let t = Instant::now();
    let err = serve_until_done(&mut server, &authority, spawn_receiver(&asset, desc)).unwrap_err();
    assert!(
        matches!(err, NetError::ServerFull { max: 256, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("full (256 receivers)"), "{err}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
    // Past the silence window the fakes are evicted and a real one converges.
    let end = Instant::now() + silent_after + Duration::from_millis(200);
    while Instant::now() < end {
        server
            .poll_until(Instant::now() + Duration::from_millis(10), &authority)
            .unwrap();
    }
    assert_eq!(server.receiver_count(), 0);
    assert_eq!(server.counters().evicted, 256);
    let got = serve_until_done(&mut server, &authority, spawn_receiver(&asset, desc)).unwrap();
    assert_eq!(got, finals(&authority));
    drop(fakes);
}

#[test]
fn a_receiver_whose_server_fell_silent_gives_up_with_a_typed_error() {
    let asset = Arc::new(Asset::new(&grid_desc(3, 3, 3, 0.5, 2000.0, 40.0)).unwrap());
    let authority = instances(&asset);
    let mut server = Server::bind(ServerDesc::default(), &welcome_of(&authority)).unwrap();
    let addr = server.local_addr().unwrap();
    let desc = ReceiverDesc {
        timeout: Duration::from_secs(60),
        server_silence: Duration::from_millis(500),
        ..ReceiverDesc::new(addr)
    };
    let receiver = spawn_receiver(&asset, desc);
    let t = Instant::now();
    while server.ready_count() < 1 {
        assert!(t.elapsed() < Duration::from_secs(10), "no receiver");
        server
            .poll_until(Instant::now() + Duration::from_millis(10), &authority)
            .unwrap();
    }
    // Statuses go out for a while, then the server stops (not finished);
    // the receiver must not wait 60 s.
    let t = Instant::now();
    while t.elapsed() < Duration::from_millis(200) {
        server
            .poll_until(Instant::now() + Duration::from_millis(10), &authority)
            .unwrap();
    }
    drop(server);
    let t = Instant::now();
    let err = receiver.join().unwrap().unwrap_err();
    let waited = t.elapsed();
    assert!(matches!(err, NetError::ServerSilent { .. }), "{err}");
    let text = err.to_string();
    assert!(
        text.contains(&format!("the server at {addr} fell silent")),
        "{text}"
    );
    assert!(text.contains("run not over"), "{text}");
    assert!(waited < Duration::from_secs(3), "{waited:?}");
}
