//! `server.send_timeout_secs` (`transport/conn/send_timeout.rs`): a client that sends a large batch and never reads the
//! answer is reset once it has taken no byte for the send timeout, and the reset is counted. A real socket with a small receive buffer, a real server.

use crate::common;

use std::time::Duration;

use common::{config, corpus_file, start, value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const SEND_TIMEOUTS: &str = "bidscan_http_send_timeouts_total";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_a_large_answer_is_reset_and_counted() {
    let mut c = config();
    c.server.send_timeout_secs = 1;
    let server = start(c).await;
    assert_eq!(value(&server.metrics().await, SEND_TIMEOUTS), 0.0);

    // 100 documents of 110 KB: an answer of megabytes, far more than the socket buffers hold.
    let doc = corpus_file("vast_110k.json");
    let mut body = Vec::new();
    for _ in 0..100 {
        body.extend_from_slice(&doc);
        body.push(b'\n');
    }
    let addr = server.base.trim_start_matches("http://").parse().unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let stream = socket.connect(addr).await.unwrap();
    let (mut rd, mut wr) = stream.into_split();
    let head = format!(
        "POST /decode/batch HTTP/1.1\r\nhost: x\r\ncontent-type: application/x-ndjson\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    // The body is sent while nothing is read; once the answer backs up, the server stops reading it too, so this
    // write may never finish: it ends with the reset.
    let writer = tokio::spawn(async move {
        wr.write_all(head.as_bytes()).await?;
        wr.write_all(&body).await
    });

    let mut counted = 0.0;
    for _ in 0..300 {
        counted = value(&server.metrics().await, SEND_TIMEOUTS);
        if counted > 0.0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(counted, 1.0, "the stalled connection was not reset");
    // The client sees the connection end by a reset, after what part of the answer its buffers held.
    let ended = tokio::time::timeout(Duration::from_secs(30), async {
        let mut buf = vec![0u8; 64 * 1024];
        let mut received = 0usize;
        loop {
            match rd.read(&mut buf).await {
                Ok(0) => return (received, None),
                Err(e) => return (received, Some(e.kind())),
                Ok(n) => received += n,
            }
        }
    })
    .await;
    let (received, read_error) = ended.expect("the connection stayed open");
    assert!(
        received < doc.len(),
        "{received} bytes: the answer was not cut"
    );
    // The socket's one reset error goes to whichever of the reader and the writer meets it first.
    let write_error = writer.await.unwrap().err().map(|e| e.kind());
    assert!(
        [read_error, write_error].contains(&Some(std::io::ErrorKind::ConnectionReset)),
        "read {read_error:?}, write {write_error:?}"
    );

    // The server still serves.
    let res = server
        .post(
            "/decode?view=summary",
            &[],
            corpus_file("banner_go_004k.json"),
        )
        .await;
    assert_eq!(res.status(), 200);
}
