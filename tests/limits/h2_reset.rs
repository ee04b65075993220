//! The last note of issue 33: while a zero-window HTTP/2 reader from one
//! address outlasts the send deadline, are another address's HTTP/2 pages
//! reset under load? Measured over loopback: one address pins its share of
//! unsent answers on 40 zero-window connections while another reads HTML
//! pages on HTTP/2, without pause, for twice the send deadline.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{connect_from, h2_get, h2c_from, serial, stalled_pages, support, timed_get};

/// How the reader's streams ended.
#[derive(Debug, Default)]
struct Read {
    whole: usize,
    reset: usize,
    other: Vec<String>,
    slowest: Duration,
}

/// Reads `/8.8.8.8` as HTML on HTTP/2 from `from`, 10 streams at a time on
/// one connection, each body read whole (its capacity given back), until
/// `stop` is set.
async fn read_pages(
    server: std::net::SocketAddr,
    from: &'static str,
    stop: Arc<AtomicBool>,
) -> Read {
    let mut read = Read::default();
    let tcp = connect_from(from, server).await.expect("connect");
    let (mut send, _ping, _conn) = h2c_from(tcp, None).await;
    while !stop.load(Ordering::Relaxed) {
        let started = Instant::now();
        let mut pending = Vec::new();
        for _ in 0..10 {
            send = send.ready().await.expect("a stream slot");
            let (response, _) = send
                .send_request(h2_get(server, "/8.8.8.8", "text/html"), true)
                .expect("request sent");
            pending.push(response);
        }
        for response in pending {
            let mut body = match response.await {
                Ok(r) if r.status() == 200 => r.into_body(),
                Ok(r) => {
                    read.other.push(r.status().to_string());
                    continue;
                }
                Err(e) if e.is_reset() => {
                    read.reset += 1;
                    continue;
                }
                Err(e) => {
                    read.other.push(e.to_string());
                    continue;
                }
            };
            let mut ended = true;
            while let Some(chunk) = body.data().await {
                match chunk {
                    Ok(bytes) => {
                        let _ = body.flow_control().release_capacity(bytes.len());
                    }
                    Err(e) => {
                        ended = false;
                        if e.is_reset() {
                            read.reset += 1;
                        } else {
                            read.other.push(e.to_string());
                        }
                        break;
                    }
                }
            }
            if ended {
                read.whole += 1;
            }
        }
        read.slowest = read.slowest.max(started.elapsed());
    }
    read
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "known, not bounded yet (SECURITY.md, HTTP/2 under a zero-window reader): on the \
            loaded 2-core machine another address's pages were reset (182 whole, 7 reset, 11 \
            broken pipes); run it with --ignored to measure"]
async fn another_address_reads_http2_pages_unreset_while_one_address_stalls() {
    let _serial = serial();
    let deadline = Duration::from_secs(3);
    let bin = support::proc::serve(&["--no-reverse-dns", "--h2c", "--request-timeout", "3"]);
    let (status, _) = timed_get(&format!("{}/8.8.8.8", bin.base)).await.unwrap();
    assert_eq!(status, 200);

    // 4 readers from 127.0.0.2 from the start of the stall until twice the
    // deadline after it is whole.
    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..4)
        .map(|_| tokio::spawn(read_pages(bin.addr, "127.0.0.2", stop.clone())))
        .collect();

    // The stall: 40 zero-window connections from 127.0.0.1, 100 HTML pages
    // each (past the address's 8 MiB share: some answered and held, the
    // rest reset at once), held past the send deadline.
    let opened = Instant::now();
    let mut held = Vec::new();
    let mut statuses = Vec::new();
    for _ in 0..40 {
        let (s, bodies, conn) = stalled_pages(bin.addr, "127.0.0.1", "/8.8.8.8", 100).await;
        statuses.extend(s);
        held.push((bodies, conn));
    }
    let stalled = statuses.iter().filter(|s| **s == 200).count();

    let whole = opened.elapsed();
    tokio::time::sleep(2 * deadline + Duration::from_secs(1)).await;
    stop.store(true, Ordering::Relaxed);
    let mut total = Read::default();
    for r in readers {
        let r = r.await.expect("a reader");
        total.whole += r.whole;
        total.reset += r.reset;
        total.other.extend(r.other);
        total.slowest = total.slowest.max(r.slowest);
    }
    eprintln!(
        "stalled from 127.0.0.1: {stalled} answers held (of 4,000 asked), the stall whole \
         after {whole:?}, readers stopped after {:?}; from 127.0.0.2: {} pages read whole, {} \
         reset, other {:?}, slowest round of 10 {:?}",
        opened.elapsed(),
        total.whole,
        total.reset,
        total.other,
        total.slowest
    );
    assert!(stalled > 0, "nothing was held");
    assert!(total.whole > 0, "the other address read nothing");
    assert_eq!(total.reset, 0, "the other address's pages were reset");
    assert!(total.other.is_empty(), "{:?}", total.other);
    drop(held);
}
