//! A TCP proxy between a server process and the database, to make the database vanish
//! and come back at a moment the test chooses (a real lost connection, not a mock).

use std::io;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Forwards connections to an upstream address until cut.
#[derive(Debug)]
pub struct FaultProxy {
    address: SocketAddr,
    cut: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl FaultProxy {
    /// Listens on a free local port and forwards to `upstream`.
    ///
    /// # Panics
    /// When no local port can be had.
    #[must_use]
    pub fn start(upstream: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        let cut = Arc::new(AtomicBool::new(false));
        let open = Arc::new(Mutex::new(Vec::new()));
        let (accept_cut, accept_open) = (Arc::clone(&cut), Arc::clone(&open));
        std::thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                if accept_cut.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(upstream) else {
                    continue;
                };
                let _ = forward(&client, &server, &accept_open);
            }
        });
        Self { address, cut, open }
    }

    /// The address to give the server process instead of the database's.
    #[must_use]
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Breaks every open connection and refuses new ones: the database is gone.
    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        for stream in self.open.lock().unwrap().drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    /// Accepts and forwards new connections again.
    pub fn restore(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}

fn forward(client: &TcpStream, server: &TcpStream, open: &Mutex<Vec<TcpStream>>) -> io::Result<()> {
    {
        let mut open = open.lock().unwrap();
        open.push(client.try_clone()?);
        open.push(server.try_clone()?);
    }
    pump(client.try_clone()?, server.try_clone()?);
    pump(server.try_clone()?, client.try_clone()?);
    Ok(())
}

fn pump(mut from: TcpStream, mut to: TcpStream) {
    std::thread::spawn(move || {
        let _ = io::copy(&mut from, &mut to);
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}
