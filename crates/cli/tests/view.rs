//! `smithereens view`'s server and the page `smithereens demo` writes.
//! The page itself is tested in a browser by `viewer/test/`.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test

use smithereens::demo::{DemoOptions, run_demo};
use smithereens::view::{VIEWER_FILES, ViewServer, standalone_page};
use smithereens_core::record::RunRecord;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

fn demo_json() -> &'static [u8] {
    static JSON: OnceLock<Vec<u8>> = OnceLock::new();
    JSON.get_or_init(|| {
        let options = DemoOptions {
            steps: 30,
            ..DemoOptions::default()
        };
        run_demo(&options, &mut |_| {}, &mut |_, _| {})
            .unwrap()
            .record
            .to_json()
    })
}

/// One HTTP/1.1 GET; returns (status code, headers, body).
fn get(addr: SocketAddr, path: &str) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut raw = vec![];
    s.read_to_end(&mut raw).unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8(raw[..split].to_vec()).unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, head, raw[split + 4..].to_vec())
}

#[test]
fn the_server_serves_the_viewer_and_the_run_on_loopback_and_stops() {
    let run = demo_json().to_vec();
    let server = ViewServer::bind(0, run.clone()).unwrap();
    let addr = server.local_addr().unwrap();
    assert!(addr.ip().is_loopback());
    assert_eq!(server.url(), format!("http://{addr}/"));
    let stop = server.stop_handle().unwrap();
    let thread = std::thread::spawn(move || server.serve());

    let (status, head, body) = get(addr, "/");
    assert_eq!(status, 200);
    assert!(head.contains("Content-Type: text/html"));
    assert!(
        String::from_utf8(body)
            .unwrap()
            .contains("<title>Smithereens run viewer</title>")
    );
    let (status, head, body) = get(addr, "/run.json");
    assert_eq!((status, body), (200, run.clone()));
    assert!(head.contains("application/json"));
    for f in VIEWER_FILES {
        let (status, _, body) = get(addr, &format!("/{}", f.path));
        assert_eq!(status, 200, "{}", f.path);
        assert_eq!(body.len(), f.body.len(), "{}", f.path);
    }
    assert_eq!(get(addr, "/../Cargo.toml").0, 404);
    assert_eq!(get(addr, "/nothing-here").0, 404);

    stop.stop();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !thread.is_finished() {
        assert!(std::time::Instant::now() < deadline, "server did not stop");
        std::thread::sleep(Duration::from_millis(20));
    }
    thread.join().unwrap().unwrap();
    assert!(
        TcpStream::connect_timeout(&addr, Duration::from_millis(500)).is_err(),
        "port still open after stop"
    );
}

#[test]
fn the_cli_prints_the_address_and_serves_the_run_until_killed() {
    let dir = std::env::temp_dir().join(format!("smithereens-view-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("demo.run.json");
    std::fs::write(&path, demo_json()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_smithereens"))
        .arg("view")
        .arg(&path)
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdout.read_line(&mut line).unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no address in {line:?}"));
    let addr: SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap();
    let (status, _, body) = get(addr, "/run.json");
    drop(stdout); // a closed pipe must not stop the server
    std::thread::sleep(Duration::from_millis(100));
    let (again, _, _) = get(addr, "/");
    child.kill().unwrap();
    child.wait().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!((status, again), (200, 200));
    assert_eq!(body, demo_json());
}

#[test]
fn the_cli_refuses_to_serve_a_truncated_or_foreign_run() {
    let dir = std::env::temp_dir().join(format!("smithereens-view-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = demo_json();
    let cut = dir.join("cut.run.json");
    let foreign = dir.join("model.gltf");
    std::fs::write(&cut, &json[..json.len() - 10]).unwrap();
    std::fs::write(&foreign, br#"{"asset":{"version":"2.0"}}"#).unwrap();
    for (file, expected) in [
        (&cut, "not valid JSON"),
        (
            &foreign,
            "not valid JSON for this format: missing field `format`",
        ),
    ] {
        let r = Command::new(env!("CARGO_BIN_EXE_smithereens"))
            .arg("view")
            .arg(file)
            .output()
            .unwrap();
        assert_eq!(r.status.code(), Some(1));
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert!(
            stderr.starts_with("error: reading ") && stderr.contains(expected),
            "{stderr}"
        );
        assert!(r.stdout.is_empty(), "no address is printed for a bad run");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_standalone_page_carries_the_run_intact() {
    let json = demo_json();
    let page = standalone_page(json);
    let start = page
        .find("<script type=\"application/json\" id=\"run-data\">")
        .unwrap();
    let rest = &page[start..];
    let inner = &rest[rest.find('>').unwrap() + 1..rest.find("</script>").unwrap()];
    let back = RunRecord::from_json(inner.replace("\\u003c", "<").as_bytes()).unwrap();
    assert_eq!(back, RunRecord::from_json(json).unwrap());
    assert!(
        !page.contains("src=\"./viewer.js\""),
        "no file next to the page is needed"
    );
}
