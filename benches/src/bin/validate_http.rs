//! What `POST /validate` costs against `POST /decode` of the same response over HTTP.
//!
//! `validate_http ADDR [ROUNDS]` (default 100), against a running `bidscan serve --listen ADDR` on 127.0.0.1:
//! one keep-alive HTTP/1.1 connection; for every real pair of `corpus/validate-pairs/`, interleaved, the
//! minimum over the rounds of the round trip of `/decode` with the response and of `/validate` with the
//! envelope (`view=summary` and `view=full`); prints the sums and the ratios. Client time is in both sides alike.
#![forbid(unsafe_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Instant;

use bidscan_bench::pairs::pairs;

/// One keep-alive connection.
struct Conn {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    body: Vec<u8>,
}

impl Conn {
    fn new(addr: &str) -> Conn {
        let stream = TcpStream::connect(addr).unwrap_or_else(|e| panic!("{addr}: {e}"));
        stream.set_nodelay(true).unwrap();
        Conn {
            reader: BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
            body: Vec::new(),
        }
    }

    /// POSTs `body` to `path`; returns the status. The answer body is read whole (into `self.body`).
    fn post(&mut self, path: &str, body: &[u8]) -> u16 {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        self.writer.write_all(head.as_bytes()).unwrap();
        self.writer.write_all(body).unwrap();
        let mut line = String::new();
        self.reader.read_line(&mut line).unwrap();
        let status: u16 = line
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mut len = 0;
        loop {
            line.clear();
            self.reader.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            if let Some((k, v)) = line.split_once(':')
                && k.eq_ignore_ascii_case("content-length")
            {
                len = v.trim().parse().unwrap();
            }
        }
        self.body.resize(len, 0);
        self.reader.read_exact(&mut self.body).unwrap();
        status
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(addr) = args.first() else {
        eprintln!("usage: validate_http ADDR [ROUNDS]");
        std::process::exit(2);
    };
    let rounds: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(100);
    let pairs = pairs();
    let mut conn = Conn::new(addr);
    for view in ["summary", "full"] {
        let (decode_path, validate_path) = (
            format!("/decode?view={view}"),
            format!("/validate?view={view}"),
        );
        let mut decode = vec![f64::MAX; pairs.len()];
        let mut validate = vec![f64::MAX; pairs.len()];
        for _ in 0..rounds {
            for (i, p) in pairs.iter().enumerate() {
                let t = Instant::now();
                let s = conn.post(&decode_path, &p.response);
                decode[i] = decode[i].min(t.elapsed().as_nanos() as f64);
                assert_eq!(s, 200, "{} /decode", p.name);
                let t = Instant::now();
                let s = conn.post(&validate_path, &p.envelope);
                validate[i] = validate[i].min(t.elapsed().as_nanos() as f64);
                assert_eq!(s, 200, "{} /validate", p.name);
            }
        }
        let (d, v): (f64, f64) = (decode.iter().sum(), validate.iter().sum());
        let mut ratios: Vec<f64> = validate.iter().zip(&decode).map(|(v, d)| v / d).collect();
        ratios.sort_by(f64::total_cmp);
        println!(
            "view={view}: {} pairs, min of {rounds} interleaved rounds: /decode {:.1} µs, /validate {:.1} µs, ratio **{:.3}** (per pair: median {:.2}, max {:.2})",
            pairs.len(),
            d / 1e3,
            v / 1e3,
            v / d,
            ratios[ratios.len() / 2],
            ratios[ratios.len() - 1]
        );
    }
}
