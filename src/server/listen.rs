//! Accepting connections: HTTP/1.1 on hyper with a bound on the time a client may take to
//! send a request's head (slow or idle connections are closed), and a graceful stop.
//!
//! The body's own time bound ([`BODY_TIMEOUT`]) and its early refusal by its declared
//! length are the `POST` handler's (`server::post_query`).

use std::future::Future;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;

/// How long a client may take to send a request's head (request line and headers), and
/// how long a kept-alive connection may stay idle between requests, unless the operator
/// says otherwise (`--header-timeout`).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a client may take to send a request's body once its head is read, unless the
/// operator says otherwise (`--body-timeout`).
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);

/// The largest timeout the operator may set, in seconds.
pub const MAX_TIMEOUT_SECONDS: f64 = 3600.0;

/// Serves `app` on `listener` until `shutdown` completes; then stops accepting, asks every
/// open connection to close after the request it serves (idle ones at once), and waits
/// for them.
pub async fn serve_until(
    listener: TcpListener,
    app: Router,
    header_timeout: Duration,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of file descriptors, or a connection reset before it was accepted:
                // wait a little (the descriptors of closing connections come back) and go on.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(app.clone());
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(header_timeout)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}
