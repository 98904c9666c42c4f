//! Listening sockets that behave like NFD's faces of their transport, and their connections.
//!
//! Each listener and each connection has threads of its own, blocked in the kernel: a reader
//! that cuts the byte stream into packets by their TLV length (a TCP or Unix stream; a UDP
//! datagram is one packet) and stamps each with the instant it was read, and for a stream a
//! writer that sends what the driver queues. They talk to the driver over one channel, so the
//! driver sleeps until exactly the next simulated event or the next packet, whichever comes
//! first (a futex wait: tens of microseconds late, where a poll loop with millisecond timeouts
//! would be up to a millisecond late).

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;

use super::uri::Listen;
use crate::wire::decode::MAX_PACKET_SIZE;
use crate::wire::read::header;

/// A connection's number, unique over the emulation.
pub type ConnId = u64;

/// Bytes a connection's writer may have queued before further packets to it are dropped, as a
/// face drops what its send queue cannot take [bytes].
pub const SEND_QUEUE_BYTES: usize = 16 << 20;

/// How often a UDP reader looks whether the emulation has ended.
const UDP_STOP_CHECK: Duration = Duration::from_millis(100);

/// What the sockets tell the driver.
pub enum Inbound {
    Opened {
        listener: usize,
        conn: ConnId,
        peer: String,
        outlet: Outlet,
    },
    /// One packet, read at `at`.
    Frame {
        conn: ConnId,
        bytes: Vec<u8>,
        at: Instant,
    },
    /// The connection sent what cannot be a packet; its reader has stopped.
    Malformed {
        conn: ConnId,
        why: String,
    },
    Closed {
        conn: ConnId,
        why: String,
    },
}

/// Where the driver sends a connection's packets, and how it closes it.
pub enum Outlet {
    Stream { queue: Sender<Vec<u8>>, queued: Arc<AtomicUsize>, closer: Closer },
    Datagram { socket: Arc<UdpSocket>, peer: SocketAddr, peers: Arc<Mutex<FxHashMap<SocketAddr, ConnId>>> },
}

pub enum Closer {
    Tcp(TcpStream),
    Unix(UnixStream),
}

impl Outlet {
    /// Send one packet; false when it was dropped (the send queue is full, or the socket
    /// refused it).
    pub fn send(&self, bytes: Vec<u8>) -> bool {
        match self {
            Outlet::Stream { queue, queued, .. } => {
                if queued.load(Ordering::Relaxed) + bytes.len() > SEND_QUEUE_BYTES {
                    return false;
                }
                queued.fetch_add(bytes.len(), Ordering::Relaxed);
                queue.send(bytes).is_ok()
            }
            Outlet::Datagram { socket, peer, .. } => socket.send_to(&bytes, peer).is_ok(),
        }
    }

    /// Close the connection (a UDP peer is forgotten: its next datagram opens a new one).
    pub fn close(&self) {
        match self {
            Outlet::Stream { closer: Closer::Tcp(s), .. } => {
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
            Outlet::Stream { closer: Closer::Unix(s), .. } => {
                let _ = s.shutdown(std::net::Shutdown::Both);
            }
            Outlet::Datagram { peers, peer, .. } => {
                peers.lock().unwrap_or_else(|p| p.into_inner()).remove(peer);
            }
        }
    }
}

/// A listening face.
pub struct Listener {
    /// Its URI, with the port it got.
    pub uri: String,
    stop: Arc<AtomicBool>,
    wake: Wake,
}

/// How to wake a listener's thread blocked in accept.
enum Wake {
    Tcp(SocketAddr),
    Unix(PathBuf),
    Udp,
}

impl Listener {
    /// Stop accepting; a Unix socket's file is removed.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        match &self.wake {
            Wake::Tcp(addr) => {
                let _ = TcpStream::connect_timeout(addr, Duration::from_millis(200));
            }
            Wake::Unix(path) => {
                let _ = UnixStream::connect(path);
                let _ = std::fs::remove_file(path);
            }
            Wake::Udp => {}
        }
    }
}

/// A thread of the transport, raised as the engine's is: a packet is stamped when its reader
/// runs, so a reader that wakes late delays it as a late engine would.
fn spawn(name: String, f: impl FnOnce() + Send + 'static) -> io::Result<()> {
    thread::Builder::new()
        .name(name)
        .spawn(move || {
            super::priority::raise_current_thread();
            f()
        })
        .map(|_| ())
}

/// Open the listening socket `listen` as listener number `index`; what happens on it goes to
/// `tx`, connections numbered from `ids`.
pub fn listen(listen: &Listen, index: usize, tx: Sender<Inbound>, ids: Arc<AtomicU64>) -> io::Result<Listener> {
    let stop = Arc::new(AtomicBool::new(false));
    match listen {
        Listen::Tcp(addr) => {
            let l = TcpListener::bind(addr)?;
            let local = l.local_addr()?;
            let wake_addr = if local.ip().is_unspecified() {
                SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), local.port())
            } else {
                local
            };
            let flag = stop.clone();
            spawn(format!("ndncc-tcp-{index}"), move || {
                for s in l.incoming() {
                    if flag.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(s) = s else { continue };
                    let _ = s.set_nodelay(true);
                    let peer = s.peer_addr().map_or_else(|_| "?".into(), |a| a.to_string());
                    let (Ok(r), Ok(w), Ok(c)) = (s.try_clone(), s.try_clone(), s.try_clone()) else { continue };
                    open_stream(index, format!("tcp://{peer}"), r, w, Closer::Tcp(c), &tx, &ids);
                }
            })?;
            Ok(Listener { uri: Listen::Tcp(local).uri(), stop, wake: Wake::Tcp(wake_addr) })
        }
        Listen::Unix(path) => {
            if path.exists() {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{} exists; remove it or choose another path", path.display()),
                ));
            }
            let l = UnixListener::bind(path)?;
            let flag = stop.clone();
            spawn(format!("ndncc-unix-{index}"), move || {
                for s in l.incoming() {
                    if flag.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(s) = s else { continue };
                    let (Ok(r), Ok(w), Ok(c)) = (s.try_clone(), s.try_clone(), s.try_clone()) else { continue };
                    open_stream(index, "unix".into(), r, w, Closer::Unix(c), &tx, &ids);
                }
            })?;
            Ok(Listener { uri: listen.uri(), stop, wake: Wake::Unix(path.clone()) })
        }
        Listen::Udp(addr) => {
            let socket = Arc::new(UdpSocket::bind(addr)?);
            socket.set_read_timeout(Some(UDP_STOP_CHECK))?;
            let local = socket.local_addr()?;
            let flag = stop.clone();
            spawn(format!("ndncc-udp-{index}"), move || read_datagrams(index, &socket, &flag, &tx, &ids))?;
            Ok(Listener { uri: Listen::Udp(local).uri(), stop, wake: Wake::Udp })
        }
    }
}

/// Start the reader and writer of a new stream connection and announce it.
fn open_stream<R: Read + Send + 'static, W: Write + Send + 'static>(
    listener: usize,
    peer: String,
    reader: R,
    mut writer: W,
    closer: Closer,
    tx: &Sender<Inbound>,
    ids: &AtomicU64,
) {
    let conn = ids.fetch_add(1, Ordering::SeqCst);
    let (queue, rx) = mpsc::channel::<Vec<u8>>();
    let queued = Arc::new(AtomicUsize::new(0));
    let count = queued.clone();
    let wrote = spawn(format!("ndncc-write-{conn}"), move || {
        for bytes in rx {
            count.fetch_sub(bytes.len(), Ordering::Relaxed);
            if writer.write_all(&bytes).is_err() {
                break;
            }
        }
    });
    let to_driver = tx.clone();
    let read = spawn(format!("ndncc-read-{conn}"), move || read_stream(conn, reader, &to_driver));
    if wrote.is_err() || read.is_err() {
        return;
    }
    let _ = tx.send(Inbound::Opened { listener, conn, peer, outlet: Outlet::Stream { queue, queued, closer } });
}

/// Cut a byte stream into packets by their TLV headers until it ends or goes wrong.
fn read_stream(conn: ConnId, mut r: impl Read, tx: &Sender<Inbound>) {
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => {
                let why = if buf.is_empty() { "closed by the application" } else { "closed inside a packet" };
                let _ = tx.send(Inbound::Closed { conn, why: why.into() });
                return;
            }
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = tx.send(Inbound::Closed { conn, why: e.to_string() });
                return;
            }
        };
        let at = Instant::now();
        buf.extend_from_slice(&chunk[..n]);
        let mut used = 0;
        while let Some((typ, len, head)) = header(&buf[used..]) {
            let total = usize::try_from(len).ok().and_then(|l| l.checked_add(head));
            let Some(total) = total.filter(|&t| t <= MAX_PACKET_SIZE) else {
                let why = format!("a packet of type {typ} and {len} bytes, above the {MAX_PACKET_SIZE}-byte limit");
                let _ = tx.send(Inbound::Malformed { conn, why });
                return;
            };
            if buf.len() - used < total {
                break;
            }
            let bytes = buf[used..used + total].to_vec();
            used += total;
            if tx.send(Inbound::Frame { conn, bytes, at }).is_err() {
                return;
            }
        }
        buf.drain(..used);
    }
}

/// Read a UDP socket's datagrams: each is one packet, each new sender a new connection.
fn read_datagrams(index: usize, socket: &Arc<UdpSocket>, stop: &AtomicBool, tx: &Sender<Inbound>, ids: &AtomicU64) {
    let peers: Arc<Mutex<FxHashMap<SocketAddr, ConnId>>> = Arc::default();
    let mut buf = vec![0u8; 1 << 16];
    while !stop.load(Ordering::SeqCst) {
        let (n, from) = match socket.recv_from(&mut buf) {
            Ok(x) => x,
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => continue,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            // A previous send was refused by a peer that has gone (ICMP port unreachable).
            Err(_) => continue,
        };
        let at = Instant::now();
        let known = peers.lock().unwrap_or_else(|p| p.into_inner()).get(&from).copied();
        let conn = match known {
            Some(c) => c,
            None => {
                let conn = ids.fetch_add(1, Ordering::SeqCst);
                peers.lock().unwrap_or_else(|p| p.into_inner()).insert(from, conn);
                let outlet = Outlet::Datagram { socket: socket.clone(), peer: from, peers: peers.clone() };
                let opened = Inbound::Opened { listener: index, conn, peer: format!("udp://{from}"), outlet };
                if tx.send(opened).is_err() {
                    return;
                }
                conn
            }
        };
        let frame = if n > MAX_PACKET_SIZE {
            Inbound::Malformed { conn, why: format!("a datagram of {n} bytes, above the {MAX_PACKET_SIZE}-byte limit") }
        } else {
            Inbound::Frame { conn, bytes: buf[..n].to_vec(), at }
        };
        if tx.send(frame).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tcp_listener() -> (Listener, mpsc::Receiver<Inbound>, SocketAddr) {
        let (tx, rx) = mpsc::channel();
        let l = listen(&Listen::Tcp("127.0.0.1:0".parse().unwrap()), 0, tx, Arc::new(AtomicU64::new(0))).unwrap();
        let addr: SocketAddr = l.uri.trim_start_matches("tcp://").parse().unwrap();
        (l, rx, addr)
    }

    #[test]
    fn a_stream_is_cut_into_packets_by_their_lengths() {
        let (l, rx, addr) = tcp_listener();
        let mut s = TcpStream::connect(addr).unwrap();
        // Two packets, the second split across writes.
        s.write_all(&[5, 2, 7, 0, 6]).unwrap();
        s.flush().unwrap();
        thread::sleep(Duration::from_millis(20));
        s.write_all(&[3, 7, 1, 8]).unwrap();
        let mut frames = Vec::new();
        while frames.len() < 2 {
            match rx.recv_timeout(Duration::from_secs(5)).unwrap() {
                Inbound::Frame { bytes, .. } => frames.push(bytes),
                Inbound::Opened { outlet, .. } => assert!(outlet.send(vec![1, 2])),
                _ => panic!("unexpected"),
            }
        }
        assert_eq!(frames, vec![vec![5, 2, 7, 0], vec![6, 3, 7, 1, 8]]);
        let mut back = [0u8; 2];
        s.read_exact(&mut back).unwrap();
        assert_eq!(back, [1, 2]);
        drop(s);
        assert!(matches!(rx.recv_timeout(Duration::from_secs(5)).unwrap(), Inbound::Closed { .. }));
        l.stop();
    }

    #[test]
    fn a_length_above_the_limit_stops_the_reader() {
        let (l, rx, addr) = tcp_listener();
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(&[5, 0xfd, 0x30, 0x00]).unwrap();
        loop {
            match rx.recv_timeout(Duration::from_secs(5)).unwrap() {
                Inbound::Malformed { why, .. } => {
                    assert!(why.contains("8800"), "{why}");
                    break;
                }
                Inbound::Opened { .. } => {}
                _ => panic!("unexpected"),
            }
        }
        l.stop();
    }
}
