//! The browser viewer (`viewer/` in the repository) embedded in the binary:
//! a tiny loopback HTTP server for `smithereens view`, and the self-contained
//! page that `smithereens demo` writes next to its run.
//!
//! The server is std-only and serves a fixed set of files plus the run at
//! `/run.json`; it binds 127.0.0.1 only and stops when its [`StopHandle`] is
//! used (the CLI runs it until Ctrl-C).

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// One file of the viewer, as served and as written to disk.
#[derive(Clone, Copy, Debug)]
pub struct ViewerFile {
    /// Path relative to the viewer root (`index.html`, `vendor/three.module.js`).
    pub path: &'static str,
    /// HTTP content type.
    pub content_type: &'static str,
    /// The file's text.
    pub body: &'static str,
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";

const INDEX_HTML: &str = include_str!("../../../viewer/index.html");
const VIEWER_JS: &str = include_str!("../../../viewer/viewer.js");
const THREE_MODULE_JS: &str = include_str!("../../../viewer/vendor/three.module.js");
const THREE_CORE_JS: &str = include_str!("../../../viewer/vendor/three.core.js");
const ORBIT_CONTROLS_JS: &str = include_str!("../../../viewer/vendor/OrbitControls.js");

/// Every file of the viewer; the page loads the run from [`RUN_PATH`] beside them.
pub const VIEWER_FILES: &[ViewerFile] = &[
    ViewerFile {
        path: "index.html",
        content_type: HTML,
        body: INDEX_HTML,
    },
    ViewerFile {
        path: "viewer.js",
        content_type: JS,
        body: VIEWER_JS,
    },
    ViewerFile {
        path: "vendor/three.module.js",
        content_type: JS,
        body: THREE_MODULE_JS,
    },
    ViewerFile {
        path: "vendor/three.core.js",
        content_type: JS,
        body: THREE_CORE_JS,
    },
    ViewerFile {
        path: "vendor/OrbitControls.js",
        content_type: JS,
        body: ORBIT_CONTROLS_JS,
    },
];

/// Where the page looks for the run, relative to `index.html`.
pub const RUN_PATH: &str = "run.json";

const IMPORTMAP_START: &str = "<!--importmap-->";
const IMPORTMAP_END: &str = "<!--/importmap-->";
const RUN_MARKER: &str = "<!--run-->";
const MODULE_TAG_START: &str = "<script type=\"module\" src=\"./viewer.js\"";
/// `three.module.js` imports the core by this relative path, which a `data:`
/// module cannot resolve; the standalone page maps it to a bare specifier.
const THREE_CORE_IMPORT: &str = "'./three.core.js'";
const THREE_CORE_SPECIFIER: &str = "three/build/three.core.js";

/// The viewer as one HTML file with the run, the viewer code and three.js
/// inside it, so it opens straight from disk (`file://`), where Chromium
/// refuses to fetch module scripts and JSON next to the page.
///
/// three.js goes in as `data:` URLs in the import map; the run goes in a
/// `<script type="application/json" id="run-data">` block with every `<`
/// written as `\u003c`, so no run content can close the block. `run_json`
/// should already be a run that [`smithereens_core::record::RunRecord::from_json`]
/// accepts; the page checks it again and shows a message if it is not.
pub fn standalone_page(run_json: &[u8]) -> String {
    let import_map = format!(
        "<script type=\"importmap\">\n{{ \"imports\": {{ \"three\": \"{}\", \"{}\": \"{}\", \"three/addons/controls/OrbitControls.js\": \"{}\" }} }}\n</script>",
        data_url(&THREE_MODULE_JS.replace(THREE_CORE_IMPORT, &format!("'{THREE_CORE_SPECIFIER}'"))),
        THREE_CORE_SPECIFIER,
        data_url(THREE_CORE_JS),
        data_url(ORBIT_CONTROLS_JS),
    );
    let run = String::from_utf8_lossy(run_json).replace('<', "\\u003c");
    let mut page = String::with_capacity(
        INDEX_HTML.len() + import_map.len() + run.len() + VIEWER_JS.len() + 256,
    );
    let (head, rest) = INDEX_HTML
        .split_once(IMPORTMAP_START)
        .unwrap_or((INDEX_HTML, ""));
    let (_, rest) = rest.split_once(IMPORTMAP_END).unwrap_or(("", rest));
    let (middle, rest) = rest.split_once(RUN_MARKER).unwrap_or((rest, ""));
    let (_, tail) = rest.split_once(MODULE_TAG_START).unwrap_or(("", rest));
    let (_, tail) = tail.split_once("</script>").unwrap_or(("", tail));
    page.push_str(head);
    page.push_str(&import_map);
    page.push_str(middle);
    page.push_str("<script type=\"application/json\" id=\"run-data\">");
    page.push_str(&run);
    page.push_str("</script>\n<script type=\"module\">\n");
    page.push_str(VIEWER_JS);
    page.push_str("\n</script>");
    page.push_str(tail);
    page
}

fn data_url(js: &str) -> String {
    format!(
        "data:text/javascript;charset=utf-8;base64,{}",
        base64(js.as_bytes())
    )
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for group in bytes.chunks(3) {
        let b = [
            group[0],
            *group.get(1).unwrap_or(&0),
            *group.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= group.len() {
                out.push(ALPHABET[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A response: status line, content type, body.
struct Response<'a> {
    status: &'static str,
    content_type: &'static str,
    body: &'a [u8],
}

fn route<'a>(method: &str, target: &str, run: &'a [u8]) -> Response<'a> {
    if method != "GET" && method != "HEAD" {
        return Response {
            status: "405 Method Not Allowed",
            content_type: "text/plain",
            body: b"only GET and HEAD\n",
        };
    }
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let path = path.strip_prefix('/').unwrap_or(path);
    let path = if path.is_empty() { "index.html" } else { path };
    if path == RUN_PATH {
        return Response {
            status: "200 OK",
            content_type: "application/json",
            body: run,
        };
    }
    match VIEWER_FILES.iter().find(|f| f.path == path) {
        Some(f) => Response {
            status: "200 OK",
            content_type: f.content_type,
            body: f.body.as_bytes(),
        },
        None => Response {
            status: "404 Not Found",
            content_type: "text/plain",
            body: b"not found\n",
        },
    }
}

fn handle(stream: TcpStream, run: &[u8]) -> io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    stream.set_write_timeout(Some(Duration::from_secs(30)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.by_ref().take(8192).read_line(&mut request_line)?;
    // Drain the headers (bounded) so the client sees a clean close.
    let mut header = String::new();
    for _ in 0..100 {
        header.clear();
        if reader.by_ref().take(8192).read_line(&mut header)? == 0
            || header == "\r\n"
            || header == "\n"
        {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let r = route(method, target, run);
    let mut out = io::BufWriter::new(stream);
    write!(
        out,
        "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n",
        r.status,
        r.content_type,
        r.body.len()
    )?;
    if method != "HEAD" {
        out.write_all(r.body)?;
    }
    out.flush()
}

/// Stops a running [`ViewServer`] from another thread.
#[derive(Clone, Debug)]
pub struct StopHandle {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl StopHandle {
    /// Asks the server to stop; [`ViewServer::serve`] returns after the
    /// connection it is waiting for (this call makes one to wake it).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
    }
}

/// The viewer's HTTP server, bound to 127.0.0.1.
///
/// # Example
/// ```no_run
/// let run = std::fs::read("out/demo/demo.run.json").unwrap();
/// let server = smithereens::view::ViewServer::bind(0, run).unwrap();
/// println!("{}", server.url());
/// server.serve().unwrap(); // until Ctrl-C
/// ```
#[derive(Debug)]
pub struct ViewServer {
    listener: TcpListener,
    run: Arc<[u8]>,
    stop: Arc<AtomicBool>,
}

impl ViewServer {
    /// Binds 127.0.0.1:`port` (0 picks a free port) and will serve `run_json`
    /// at `/run.json` beside the viewer files.
    ///
    /// # Errors
    /// The bind error (port in use, no permission).
    pub fn bind(port: u16, run_json: Vec<u8>) -> io::Result<Self> {
        let listener = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port))?;
        Ok(Self {
            listener,
            run: run_json.into(),
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The bound address.
    ///
    /// # Errors
    /// If the socket cannot report it.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        match self.listener.local_addr() {
            Ok(a) => format!("http://{a}/"),
            Err(_) => "http://127.0.0.1/".into(),
        }
    }

    /// A handle that stops [`ViewServer::serve`].
    ///
    /// # Errors
    /// If the socket cannot report its address.
    pub fn stop_handle(&self) -> io::Result<StopHandle> {
        Ok(StopHandle {
            addr: self.listener.local_addr()?,
            stop: self.stop.clone(),
        })
    }

    /// Serves until stopped, one short-lived thread per connection.
    ///
    /// # Errors
    /// A failure of the listening socket itself; errors on single
    /// connections are ignored.
    pub fn serve(self) -> io::Result<()> {
        for stream in self.listener.incoming() {
            if self.stop.load(Ordering::SeqCst) {
                break;
            }
            let Ok(stream) = stream else { continue };
            let run = self.run.clone();
            std::thread::spawn(move || {
                let _ = handle(stream, &run);
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_4648_examples() {
        for (plain, encoded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64(plain.as_bytes()), encoded);
        }
    }

    #[test]
    fn the_page_has_the_markers_the_standalone_page_replaces() {
        for marker in [IMPORTMAP_START, IMPORTMAP_END, RUN_MARKER, MODULE_TAG_START] {
            assert_eq!(INDEX_HTML.matches(marker).count(), 1, "{marker}");
        }
        assert!(THREE_MODULE_JS.contains(THREE_CORE_IMPORT));
        // Inlined as a module script, the viewer must not close its own tag.
        assert!(!VIEWER_JS.contains("</script"));
    }

    #[test]
    fn the_standalone_page_needs_no_other_file() {
        let page = standalone_page(br#"{"name":"</script><b>"}"#);
        assert!(page.contains("id=\"run-data\""));
        assert!(!page.contains("src=\"./viewer.js\""));
        assert!(!page.contains("./vendor/"));
        assert!(
            !page.contains("</script><b>"),
            "run text must not end the script block"
        );
        assert_eq!(page.matches("<script type=\"importmap\">").count(), 1);
    }

    #[test]
    fn routes_serve_the_page_the_run_and_nothing_else() {
        let run = b"{}";
        assert_eq!(route("GET", "/", run).body, INDEX_HTML.as_bytes());
        assert_eq!(route("GET", "/index.html?run=x", run).status, "200 OK");
        assert_eq!(route("GET", "/run.json", run).body, run);
        assert_eq!(route("GET", "/vendor/three.core.js", run).content_type, JS);
        assert_eq!(route("GET", "/../Cargo.toml", run).status, "404 Not Found");
        assert_eq!(route("POST", "/", run).status, "405 Method Not Allowed");
    }
}
