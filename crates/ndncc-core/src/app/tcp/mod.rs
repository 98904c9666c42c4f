//! TCP bulk transfers as applications: the sender (connection logic, NewReno loss recovery and
//! the retransmission timer, `sender.rs`) and the receiver (cumulative, delayed ACKs and ECN
//! echo, `receiver.rs`). The congestion window's growth and decrease are the sender's
//! `TcpControl` (`cc/tcp/`). A scenario's `type = "tcp"` app is one flow: the builder puts the
//! sender on its `node`, the receiver on its `to`, and binds their ports.

pub mod receiver;
pub mod sender;

pub use receiver::{TcpReceiver, TcpReceiverParams};
pub use sender::{tcp_rtt_config, TcpSender, TcpSenderParams, HEADER_BYTES};
