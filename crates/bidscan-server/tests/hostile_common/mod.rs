//! Helpers of the hardening tests (`hostile*.rs`, `overload.rs`, `drain.rs`, `soak.rs`): the real `bidscan`
//! binary as a child process, process memory from `/proc`, latency percentiles, the file-descriptor limit.
#![allow(dead_code)] // each test binary uses a different subset

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::StreamExt;

/// A `RUST_LOG` filter for load tests: warnings only, but the "bidscan listening" line [`spawn`] waits for.
pub const QUIET: &str = "warn,bidscan_server::server=info";

/// A request body that sends the first half of `doc`, waits `gap`, then sends the rest: its request holds a
/// decode permit (and its connection stays busy) for at least `gap`.
pub fn paced(doc: Bytes, gap: Duration) -> reqwest::Body {
    let (head, rest) = (doc.slice(..doc.len() / 2), doc.slice(doc.len() / 2..));
    let first = futures_util::stream::once(async move { Ok::<Bytes, std::io::Error>(head) });
    let second = futures_util::stream::once(async move {
        tokio::time::sleep(gap).await;
        Ok::<Bytes, std::io::Error>(rest)
    });
    reqwest::Body::wrap_stream(first.chain(second))
}

/// A `bidscan serve` child process on `127.0.0.1:0`, killed on drop if still running.
pub struct Served {
    child: std::process::Child,
    /// The address it listens on (read from its "bidscan listening" log line).
    pub addr: SocketAddr,
    /// `http://ADDR`.
    pub base: String,
    log: Arc<Mutex<Vec<String>>>,
}

/// Starts the `bidscan` binary built with these tests (`CARGO_BIN_EXE_bidscan`: debug for `cargo test`, release
/// for `cargo test --release`) with `BIDSCAN__…` overrides in `env`, and waits until it listens. The listening
/// address is read from the log: keep `bidscan_server::server` at `info` (see [`QUIET`]).
pub fn spawn(env: &[(&str, &str)]) -> Served {
    spawn_args(&[], env)
}

/// [`spawn`] with more arguments after `serve` (e.g. `--config FILE`).
pub fn spawn_args(args: &[&str], env: &[(&str, &str)]) -> Served {
    let mut command = Command::new(env!("CARGO_BIN_EXE_bidscan"));
    command.arg("serve").args(args);
    spawn_command(command, env)
}

/// [`spawn`] of `command`, which runs `bidscan serve` (under a wrapper such as `prlimit`).
pub fn spawn_command(mut command: Command, env: &[(&str, &str)]) -> Served {
    let mut child = command
        .env("BIDSCAN__SERVER__LISTEN", "127.0.0.1:0")
        .env("BIDSCAN__LOG__FORMAT", "json")
        .env("BIDSCAN__LOG__LEVEL", "info")
        .env_remove("RUST_LOG")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn bidscan");
    let log = Arc::new(Mutex::new(Vec::new()));
    let (tx, rx) = std::sync::mpsc::channel::<SocketAddr>();
    for stream in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let log = log.clone();
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                if line.contains("bidscan listening")
                    && let Some(addr) = listening_addr(&line)
                {
                    let _ = tx.send(addr);
                }
                log.lock().unwrap().push(line);
            }
        });
    }
    let addr = match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(addr) => addr,
        Err(_) => {
            let _ = child.kill();
            panic!("bidscan did not start: {:?}", log.lock().unwrap());
        }
    };
    Served {
        child,
        addr,
        base: format!("http://{addr}"),
        log,
    }
}

/// The `addr` field of the JSON log line `bidscan listening`.
fn listening_addr(line: &str) -> Option<SocketAddr> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    v.get("addr")?.as_str()?.parse().ok()
}

impl Served {
    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Sends SIGHUP (reload the configuration).
    pub fn sighup(&self) {
        let status = Command::new("kill")
            .args(["-HUP", &self.pid().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
    }

    /// Sends SIGTERM (what Kubernetes and `docker stop` send).
    pub fn sigterm(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .expect("kill");
        assert!(status.success());
    }

    /// Waits up to `timeout` for the process to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Resident set size of the child, in bytes.
    pub fn rss(&self) -> u64 {
        status_kib(&format!("/proc/{}/status", self.pid()), "VmRSS:") * 1024
    }

    /// Peak resident set size of the child, in bytes.
    pub fn peak_rss(&self) -> u64 {
        status_kib(&format!("/proc/{}/status", self.pid()), "VmHWM:") * 1024
    }

    /// Every line the child printed so far.
    pub fn logs(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A `kB` field of a `/proc/…/status` file (0 when absent).
pub fn status_kib(file: &str, key: &str) -> u64 {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// This process's resident set size, in bytes.
pub fn self_rss() -> u64 {
    status_kib("/proc/self/status", "VmRSS:") * 1024
}

/// This process's peak resident set size since the last [`reset_self_peak`], in bytes.
pub fn self_peak_rss() -> u64 {
    status_kib("/proc/self/status", "VmHWM:") * 1024
}

/// Resets this process's peak RSS to its current RSS (Linux `clear_refs` value 5). Returns false where that is
/// not allowed, in which case the peak includes everything since start.
pub fn reset_self_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The soft limit of open files of this process.
pub fn fd_limit() -> u64 {
    std::fs::read_to_string("/proc/self/limits")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(3))
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024)
}

/// The `p`-th percentile (0–100) of `samples` (sorted in place); zero when empty.
pub fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    if samples.is_empty() {
        return Duration::ZERO;
    }
    samples.sort_unstable();
    let rank = ((p / 100.0) * (samples.len() - 1) as f64).round() as usize;
    samples[rank.min(samples.len() - 1)]
}

/// Milliseconds, for printing.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Mebibytes, for printing.
pub fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// A number from the environment, or `default`.
pub fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A raw HTTP/1.1 POST over one connection, the way curl sends one: the body is written by its own task (write
/// errors ignored, as the server may answer and close before reading it all) while the answer is read. Returns
/// the status and the body of the answer, or the I/O error that cut it (e.g. a reset).
///
/// Without the server's lingering close, hyper's client (reqwest) would report `IncompleteMessage` instead of an
/// answer sent early; it still does if the body takes longer than the linger time (2 s) to arrive. curl and this function read the answer whatever the timing.
pub async fn raw_post(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    body: bytes::Bytes,
    chunked: bool,
) -> std::io::Result<(u16, Vec<u8>)> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let (mut rd, mut wr) = stream.into_split();
    let mut head = format!("POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    if chunked {
        head.push_str("Transfer-Encoding: chunked\r\n\r\n");
    } else {
        head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    }
    let writer = tokio::spawn(async move {
        wr.write_all(head.as_bytes()).await?;
        if chunked {
            for chunk in body.chunks(64 * 1024) {
                wr.write_all(format!("{:x}\r\n", chunk.len()).as_bytes())
                    .await?;
                wr.write_all(chunk).await?;
                wr.write_all(b"\r\n").await?;
            }
            wr.write_all(b"0\r\n\r\n").await?;
        } else {
            wr.write_all(&body).await?;
        }
        wr.flush().await?;
        Ok::<_, std::io::Error>(wr) // kept open until the answer is read
    });
    let mut answer = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    let (status, body_start, length) = loop {
        let n = rd.read(&mut buf).await?;
        if n == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "closed before the answer's head",
            ));
        }
        answer.extend_from_slice(&buf[..n]);
        if let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&answer[..end]).to_ascii_lowercase();
            let status = head
                .split_whitespace()
                .nth(1)
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse::<usize>().ok());
            break (status, end + 4, length);
        }
    };
    loop {
        if length.is_some_and(|l| answer.len() - body_start >= l) {
            break;
        }
        let n = rd.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        answer.extend_from_slice(&buf[..n]);
    }
    writer.abort();
    Ok((status, answer[body_start..].to_vec()))
}
