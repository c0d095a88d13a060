//! A small static file server on 127.0.0.1 for the browser checks: serves
//! one directory over HTTP/1.1 (GET and HEAD, one request a connection)
//! and records every request with the status it got, so the checker can
//! tell a page's broken requests from the server's side too.

use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One request the server answered: the path asked for and the status.
#[derive(Clone, Debug)]
pub struct Served {
    pub path: String,
    pub status: u16,
}

/// The server; stops (and joins its thread) when dropped.
pub struct Server {
    addr: SocketAddr,
    log: Arc<Mutex<Vec<Served>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Serve `root` on a free port of 127.0.0.1.
    pub fn start(root: &Path) -> Result<Server, String> {
        let listener =
            TcpListener::bind("127.0.0.1:0").map_err(|e| format!("binding 127.0.0.1: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("the server's address: {e}"))?;
        let root = root
            .canonicalize()
            .map_err(|e| format!("{}: {e}", root.display()))?;
        let log = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (log2, stop2) = (log.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("site-server".into())
            .spawn(move || {
                for conn in listener.incoming() {
                    if stop2.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(conn) = conn else { continue };
                    let (root, log) = (root.clone(), log2.clone());
                    // One thread a connection: Chromium opens several at once.
                    let _ = std::thread::Builder::new()
                        .name("site-conn".into())
                        .spawn(move || answer(conn, &root, &log));
                }
            })
            .map_err(|e| format!("starting the server thread: {e}"))?;
        Ok(Server {
            addr,
            log,
            stop,
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:PORT/` followed by `path` (relative to the root).
    pub fn url(&self, path: &str) -> String {
        format!("http://{}/{}", self.addr, path.trim_start_matches('/'))
    }

    /// The origin, `http://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request answered so far.
    pub fn served(&self) -> Vec<Served> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The file a URL path names under `root`: percent-decoded, no `..`, a
/// directory meaning its `index.html`.
pub fn file_for(root: &Path, url_path: &str) -> Option<PathBuf> {
    let path = url_path.split(['?', '#']).next().unwrap_or("");
    let decoded = percent_decode(path)?;
    let mut file = root.to_path_buf();
    for c in Path::new(decoded.trim_start_matches('/')).components() {
        match c {
            Component::Normal(p) => file.push(p),
            Component::CurDir => {}
            _ => return None,
        }
    }
    if decoded.ends_with('/') || decoded.is_empty() || file.is_dir() {
        file.push("index.html");
    }
    Some(file)
}

fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

fn content_type(file: &Path) -> &'static str {
    match file.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "json" => "application/json",
        "png" => "image/png",
        "txt" => "text/plain; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        _ => "application/octet-stream",
    }
}

fn answer(conn: TcpStream, root: &Path, log: &Mutex<Vec<Served>>) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = conn.set_write_timeout(Some(Duration::from_secs(10)));
    let Ok(read_half) = conn.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut request = String::new();
    if reader.read_line(&mut request).is_err() || request.is_empty() {
        return;
    }
    // The headers: read and ignored.
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line.trim().is_empty() => break,
            Ok(_) => {}
        }
    }
    let mut parts = request.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let (status, body, ctype) = if method != "GET" && method != "HEAD" {
        (405, Vec::new(), "text/plain")
    } else {
        match file_for(root, target).map(|f| (std::fs::read(&f), f)) {
            Some((Ok(body), f)) => (200, body, content_type(&f)),
            _ => (404, b"not found\n".to_vec(), "text/plain"),
        }
    };
    if let Ok(mut l) = log.lock() {
        l.push(Served {
            path: target.to_string(),
            status,
        });
    }
    let reason = match status {
        200 => "OK",
        404 => "Not Found",
        _ => "Method Not Allowed",
    };
    let head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut w = &conn;
    let _ = w.write_all(head.as_bytes());
    if method != "HEAD" {
        let _ = w.write_all(&body);
    }
    let _ = w.flush();
    let _ = conn.shutdown(Shutdown::Both);
}
