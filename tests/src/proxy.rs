//! A TCP proxy between a server process and the database, to make the database vanish
//! and come back at a moment the test chooses (a real lost connection, not a mock).
//!
//! It reads the MySQL client/server protocol's packet framing on the way to the server
//! (3-byte length, 1-byte sequence, payload), so it can also fail one connection exactly
//! at its `COMMIT`: either the `COMMIT` never reaches the server, or the server commits
//! and its answer never reaches the client.
//!
//! It can also fall silent: nothing is forwarded in either direction and nothing is
//! closed, as with a blackholed route or a frozen host. Bytes sent meanwhile are held
//! and delivered when the silence ends, as TCP would after the route came back.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// `COM_QUERY`: a text statement follows.
const COM_QUERY: u8 = 0x03;

/// How the next `COMMIT` fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommitFault {
    /// The connection breaks before the `COMMIT` reaches the server: nothing commits.
    NeverArrives,
    /// The server receives and runs the `COMMIT`; the connection breaks before its answer
    /// reaches the client: everything commits, and the client cannot know.
    AnswerLost,
    /// The proxy falls silent just before the `COMMIT` would be forwarded (see
    /// [`FaultProxy::silence`]); the `COMMIT` is held with everything else.
    Silence,
}

#[derive(Debug, Default)]
struct Shared {
    cut: AtomicBool,
    commit_fault: Mutex<Option<CommitFault>>,
    commit_faults_fired: AtomicUsize,
    open: Mutex<Vec<TcpStream>>,
    silent: Mutex<bool>,
    spoke_again: Condvar,
}

impl Shared {
    fn set_silent(&self, silent: bool) {
        *lock(&self.silent) = silent;
        self.spoke_again.notify_all();
    }

    /// Blocks while the proxy is silent.
    fn wait_while_silent(&self) {
        let silent = lock(&self.silent);
        drop(
            self.spoke_again
                .wait_while(silent, |silent| *silent)
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Forwards connections to an upstream address until cut.
#[derive(Debug)]
pub struct FaultProxy {
    address: SocketAddr,
    shared: Arc<Shared>,
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
        let shared = Arc::new(Shared::default());
        let accept_shared = Arc::clone(&shared);
        std::thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                // A silent network delivers no handshake: the client's connect waits.
                accept_shared.wait_while_silent();
                if accept_shared.cut.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(upstream) else {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                };
                let _ = forward(client, server, &accept_shared);
            }
        });
        Self { address, shared }
    }

    /// The address to give the server process instead of the database's.
    #[must_use]
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Breaks every open connection and refuses new ones: the database is gone.
    pub fn cut(&self) {
        // Under the lock a connection registers with: one accepted meanwhile is either
        // registered already, and broken here, or sees the cut when it registers.
        let mut open = lock(&self.shared.open);
        self.shared.cut.store(true, Ordering::SeqCst);
        for stream in open.drain(..) {
            let _ = stream.shutdown(Shutdown::Both);
        }
    }

    /// Accepts and forwards new connections again.
    pub fn restore(&self) {
        self.shared.cut.store(false, Ordering::SeqCst);
    }

    /// Fails the next `COMMIT` sent through any connection, once, as `fault` says; only
    /// that connection breaks.
    pub fn fail_next_commit(&self, fault: CommitFault) {
        *lock(&self.shared.commit_fault) = Some(fault);
    }

    /// Stops forwarding in both directions without closing anything: requests on the
    /// database meet silence, not an error.
    pub fn silence(&self) {
        self.shared.set_silent(true);
    }

    /// Ends the silence: held bytes and connections go through.
    pub fn speak_again(&self) {
        self.shared.set_silent(false);
    }

    /// How many `COMMIT`s were failed so far: proof that the fault hit a `COMMIT`.
    #[must_use]
    pub fn commit_faults_fired(&self) -> usize {
        self.shared.commit_faults_fired.load(Ordering::SeqCst)
    }
}

impl Drop for FaultProxy {
    /// Lets held connections go, so no forwarding thread outlives the test blocked.
    fn drop(&mut self) {
        self.speak_again();
    }
}

fn forward(client: TcpStream, server: TcpStream, shared: &Arc<Shared>) -> io::Result<()> {
    {
        let mut open = lock(&shared.open);
        if shared.cut.load(Ordering::SeqCst) {
            // Cut while this one was being connected upstream: it must not survive.
            let _ = client.shutdown(Shutdown::Both);
            let _ = server.shutdown(Shutdown::Both);
            return Ok(());
        }
        open.push(client.try_clone()?);
        open.push(server.try_clone()?);
    }
    let swallow_answer = Arc::new(AtomicBool::new(false));
    let to_server = Pump {
        from: client.try_clone()?,
        to: server.try_clone()?,
        shared: Arc::clone(shared),
        swallow_answer: Arc::clone(&swallow_answer),
    };
    let to_client = Pump {
        from: server,
        to: client,
        shared: Arc::clone(shared),
        swallow_answer,
    };
    std::thread::spawn(move || to_server.client_to_server());
    std::thread::spawn(move || to_client.server_to_client());
    Ok(())
}

/// One direction of one proxied connection.
struct Pump {
    from: TcpStream,
    to: TcpStream,
    shared: Arc<Shared>,
    /// Set on the way to the server when the answer to the `COMMIT` must be lost.
    swallow_answer: Arc<AtomicBool>,
}

impl Pump {
    /// Forwards packet by packet, looking at each for a `COMMIT` to fail.
    fn client_to_server(mut self) {
        let mut header = [0_u8; 4];
        let mut payload = Vec::new();
        loop {
            if self.from.read_exact(&mut header).is_err() {
                break;
            }
            let length =
                usize::from(header[0]) | usize::from(header[1]) << 8 | usize::from(header[2]) << 16;
            payload.resize(length, 0);
            if self.from.read_exact(&mut payload).is_err() {
                break;
            }
            if is_commit(&payload) {
                let fault = lock(&self.shared.commit_fault).take();
                if let Some(fault) = fault {
                    self.shared
                        .commit_faults_fired
                        .fetch_add(1, Ordering::SeqCst);
                    match fault {
                        CommitFault::NeverArrives => break,
                        CommitFault::AnswerLost => {
                            self.swallow_answer.store(true, Ordering::SeqCst);
                        }
                        CommitFault::Silence => self.shared.set_silent(true),
                    }
                }
            }
            self.shared.wait_while_silent();
            if self.to.write_all(&header).is_err() || self.to.write_all(&payload).is_err() {
                break;
            }
        }
        self.close();
    }

    /// Forwards bytes as they come, unless the answer to a failed `COMMIT` is due.
    fn server_to_client(mut self) {
        let mut buffer = [0_u8; 16 * 1024];
        while let Ok(n) = self.from.read(&mut buffer) {
            // The flag is set before the COMMIT is forwarded, so its answer cannot be
            // read before the flag is seen.
            if n == 0 || self.swallow_answer.load(Ordering::SeqCst) {
                break;
            }
            self.shared.wait_while_silent();
            if self.to.write_all(&buffer[..n]).is_err() {
                break;
            }
        }
        self.close();
    }

    fn close(&self) {
        let _ = self.to.shutdown(Shutdown::Both);
        let _ = self.from.shutdown(Shutdown::Both);
    }
}

fn is_commit(payload: &[u8]) -> bool {
    match payload.split_first() {
        Some((&COM_QUERY, text)) => text.trim_ascii().eq_ignore_ascii_case(b"COMMIT"),
        _ => false,
    }
}
