//! The ceiling for `bench/http.sh`: the least an HTTP/1.1 server on this
//! machine can do per request. hyper 1 on a multi-threaded tokio runtime (as
//! iplookup), one fixed body for every request, no routing, no parsing.
//!
//! Usage: ceiling LISTEN_ADDR BODY_FILE [CONTENT_TYPE]
//! The body file is the real answer of iplookup to /api/v1/ip/8.8.8.8,
//! fetched by bench/http.sh, so both servers send bodies of the same size.

use std::convert::Infallible;
use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{CONTENT_TYPE, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let usage = "usage: ceiling LISTEN_ADDR BODY_FILE [CONTENT_TYPE]";
    let listen: SocketAddr = args.next().expect(usage).parse().expect(usage);
    let body = Bytes::from(std::fs::read(args.next().expect(usage)).expect("readable body file"));
    let content_type = HeaderValue::from_str(
        &args
            .next()
            .unwrap_or_else(|| "application/json".to_owned()),
    )
    .expect("valid content type");

    let listener = TcpListener::bind(listen).await.expect("bind");
    eprintln!(
        "ceiling: listening on {} ({} byte body)",
        listener.local_addr().unwrap(),
        body.len()
    );
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let body = body.clone();
        let content_type = content_type.clone();
        tokio::spawn(async move {
            let service = service_fn(move |_req: Request<hyper::body::Incoming>| {
                let mut response = Response::new(Full::new(body.clone()));
                response
                    .headers_mut()
                    .insert(CONTENT_TYPE, content_type.clone());
                async move { Ok::<_, Infallible>(response) }
            });
            let _ = http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}
