//! Headless Chromium driven over the DevTools protocol through a pipe
//! (`--remote-debugging-pipe`: JSON messages separated by NUL bytes on the
//! browser's file descriptors 3 and 4), with nothing but the standard
//! library and serde_json: no WebSocket, no port, no generated protocol
//! types that lag behind the browser.
//!
//! Every wait has a deadline; the browser runs in its own process group,
//! which is killed when the [`Browser`] is dropped.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The flags Chromium needs headless, as root, on a machine whose only
/// network is loopback.
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--mute-audio",
    "--remote-debugging-pipe",
];

/// The Chromium to run: `$DERVISH_CHROMIUM`, else `chromium`, then
/// `chromium-browser`, `google-chrome` on the `PATH`.
pub fn find_chromium() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os("DERVISH_CHROMIUM").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "DERVISH_CHROMIUM={} is not a file: point it at a Chromium or unset it",
                p.display()
            ))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        for dir in std::env::split_paths(&path) {
            let p = dir.join(name);
            if p.is_file() {
                return Ok(p);
            }
        }
    }
    Err(
        "Chromium was not found (no `chromium` on the PATH and DERVISH_CHROMIUM unset): \
         install Debian's `chromium` package (scripts/test does, as root) or set \
         DERVISH_CHROMIUM to a Chromium or Chrome binary"
            .into(),
    )
}

/// A running headless Chromium.
pub struct Browser {
    child: Child,
    to: ChildStdin,
    from: Receiver<Result<Value, String>>,
    next_id: u64,
    /// Events received while waiting for an answer, oldest first.
    events: VecDeque<Value>,
    stderr_log: PathBuf,
    closed: bool,
}

impl Browser {
    /// Start Chromium with a fresh profile in `profile` (created if need
    /// be; Chromium's own messages go to `profile/../chromium.log`).
    pub fn launch(profile: &Path) -> Result<Browser, String> {
        let exe = find_chromium()?;
        std::fs::create_dir_all(profile).map_err(|e| format!("{}: {e}", profile.display()))?;
        let stderr_log = profile.with_extension("log");
        let log = std::fs::File::create(&stderr_log)
            .map_err(|e| format!("{}: {e}", stderr_log.display()))?;
        // The shell hands our pipes to Chromium as fds 3 (commands in) and
        // 4 (answers out), then execs it: the child is Chromium itself.
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg("exec \"$0\" \"$@\" 3<&0 4>&1 </dev/null >/dev/null")
            .arg(&exe)
            .args(FLAGS)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("--window-size=1280,800")
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log));
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("starting {}: {e}", exe.display()))?;
        let (to, out) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => {
                let _ = child.kill();
                return Err("Chromium's pipes were not set up".into());
            }
        };
        let (tx, rx) = channel();
        std::thread::Builder::new()
            .name("chromium-pipe".into())
            .spawn(move || {
                let mut r = BufReader::new(out);
                loop {
                    let mut buf = Vec::new();
                    match r.read_until(0, &mut buf) {
                        Ok(0) => {
                            let _ = tx.send(Err("Chromium closed its pipe".into()));
                            break;
                        }
                        Ok(_) => {
                            if buf.last() == Some(&0) {
                                buf.pop();
                            }
                            let msg = serde_json::from_slice::<Value>(&buf)
                                .map_err(|e| format!("a message from Chromium is not JSON: {e}"));
                            if tx.send(msg).is_err() {
                                break;
                            }
                        }
                        Err(e) => {
                            let _ = tx.send(Err(format!("reading Chromium's pipe: {e}")));
                            break;
                        }
                    }
                }
            })
            .map_err(|e| format!("starting the pipe reader: {e}"))?;
        let mut b = Browser {
            child,
            to,
            from: rx,
            next_id: 0,
            events: VecDeque::new(),
            stderr_log,
            closed: false,
        };
        b.call(
            None,
            "Browser.getVersion",
            json!({}),
            Duration::from_secs(30),
        )
        .map_err(|e| format!("Chromium did not answer: {e}{}", b.log_tail()))?;
        Ok(b)
    }

    /// The last lines Chromium wrote to its log, for error messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.stderr_log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let tail = lines[lines.len().saturating_sub(15)..].join("\n");
        if tail.is_empty() {
            String::new()
        } else {
            format!(
                "\n---- Chromium's log ({}):\n{tail}",
                self.stderr_log.display()
            )
        }
    }

    /// Send a command (to a page's `session`, or to the browser) and wait
    /// up to `timeout` for its answer; events that arrive meanwhile are
    /// kept for [`Browser::take_events`] and [`Browser::wait_event`].
    pub fn call(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let mut bytes = serde_json::to_vec(&msg).map_err(|e| e.to_string())?;
        bytes.push(0);
        self.to
            .write_all(&bytes)
            .and_then(|()| self.to.flush())
            .map_err(|e| format!("{method}: writing to Chromium: {e}"))?;
        let deadline = Instant::now() + timeout;
        loop {
            let m = self.recv(deadline, method)?;
            if m.get("id").and_then(Value::as_u64) == Some(id) {
                if let Some(err) = m.get("error") {
                    return Err(format!("{method}: {err}"));
                }
                return Ok(m.get("result").cloned().unwrap_or(Value::Null));
            }
            if m.get("method").is_some() {
                self.events.push_back(m);
            }
        }
    }

    fn recv(&mut self, deadline: Instant, waiting_for: &str) -> Result<Value, String> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.from.recv_timeout(left) {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(format!(
                "{e} (waiting for {waiting_for}){}",
                self.log_tail()
            )),
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "Chromium gave no {waiting_for} in time{}",
                self.log_tail()
            )),
            Err(RecvTimeoutError::Disconnected) => Err(format!(
                "Chromium's pipe reader stopped (waiting for {waiting_for}){}",
                self.log_tail()
            )),
        }
    }

    /// Wait up to `timeout` for an event `method` of `session`; returns it
    /// (and keeps it among the events).
    pub fn wait_event(
        &mut self,
        session: &str,
        method: &str,
        timeout: Duration,
    ) -> Result<Value, String> {
        let is_it = |m: &Value| {
            m.get("method").and_then(Value::as_str) == Some(method)
                && m.get("sessionId").and_then(Value::as_str) == Some(session)
        };
        if let Some(m) = self.events.iter().find(|m| is_it(m)) {
            return Ok(m.clone());
        }
        let deadline = Instant::now() + timeout;
        loop {
            let m = self.recv(deadline, method)?;
            if m.get("method").is_some() {
                let found = is_it(&m);
                self.events.push_back(m.clone());
                if found {
                    return Ok(m);
                }
            }
        }
    }

    /// The events kept so far, oldest first; the list is emptied.
    pub fn take_events(&mut self) -> Vec<Value> {
        self.events.drain(..).collect()
    }

    /// Open a new tab on about:blank and attach to it: its session id.
    pub fn new_page(&mut self, timeout: Duration) -> Result<String, String> {
        let t = self.call(
            None,
            "Target.createTarget",
            json!({ "url": "about:blank" }),
            timeout,
        )?;
        let target = t["targetId"]
            .as_str()
            .ok_or("Target.createTarget gave no targetId")?
            .to_string();
        let a = self.call(
            None,
            "Target.attachToTarget",
            json!({ "targetId": target, "flatten": true }),
            timeout,
        )?;
        let session = a["sessionId"]
            .as_str()
            .ok_or("Target.attachToTarget gave no sessionId")?
            .to_string();
        for domain in ["Page", "Runtime", "Log", "Network"] {
            self.call(
                Some(&session),
                &format!("{domain}.enable"),
                json!({}),
                timeout,
            )?;
        }
        Ok(session)
    }

    /// Evaluate `expr` in the page and return its value (as JSON).
    pub fn eval(&mut self, session: &str, expr: &str, timeout: Duration) -> Result<Value, String> {
        let r = self.call(
            Some(session),
            "Runtime.evaluate",
            json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }),
            timeout,
        )?;
        if let Some(ex) = r.get("exceptionDetails") {
            let text = ex["exception"]["description"]
                .as_str()
                .or(ex["text"].as_str())
                .unwrap_or("an exception");
            return Err(format!("the page's script failed: {text}"));
        }
        Ok(r["result"]["value"].clone())
    }

    /// Close the browser: politely, then by force.
    pub fn close(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        let _ = self.call(None, "Browser.close", json!({}), Duration::from_secs(5));
        // Wait for Chromium to close its end of the pipe; the child is not
        // reaped before the group is killed, so its id cannot be reused.
        let deadline = Instant::now() + Duration::from_secs(5);
        while let Ok(Ok(_)) = self
            .from
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
        {}
        self.kill_group();
    }

    /// SIGKILL to Chromium's whole process group (renderers, GPU and
    /// utility processes included), then reap it.
    fn kill_group(&mut self) {
        let pid = self.child.id();
        // The shell's own kill: `kill -9 -PGID` in dash and bash alike.
        let _ = Command::new("sh")
            .args(["-c", "kill -9 -\"$1\"", "sh", &pid.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        self.kill_group();
    }
}
