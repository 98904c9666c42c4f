//! The `--face NODE=URI` argument: which node a listening socket attaches real applications
//! to, and the socket, in the forms NFD's face URIs take (`tcp://127.0.0.1:6363`,
//! `udp://127.0.0.1:6363`, `unix:///run/nfd.sock`).

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

/// Where a face listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listen {
    Tcp(SocketAddr),
    Udp(SocketAddr),
    Unix(PathBuf),
}

/// One `--face`: the node and where to listen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaceSpec {
    pub node: String,
    pub listen: Listen,
}

/// Read `NODE=URI`. The host of a TCP or UDP URI is an IP address (in brackets for IPv6) and
/// its port 0 to 65,535 (0: any free port, reported once listening); a Unix socket's path is
/// absolute.
pub fn parse_face(arg: &str) -> Result<FaceSpec, String> {
    let Some((node, uri)) = arg.split_once('=') else {
        return Err(format!("--face '{arg}': expected NODE=URI, such as P=tcp://127.0.0.1:6363"));
    };
    if node.is_empty() {
        return Err(format!("--face '{arg}': the node name before '=' is empty"));
    }
    let listen = parse_uri(uri).map_err(|why| format!("--face '{arg}': {why}"))?;
    Ok(FaceSpec { node: node.to_owned(), listen })
}

/// Read a face URI.
pub fn parse_uri(uri: &str) -> Result<Listen, String> {
    let Some((scheme, rest)) = uri.split_once("://") else {
        return Err(format!("'{uri}' is not a URI; expected tcp://HOST:PORT, udp://HOST:PORT or unix:///PATH"));
    };
    match scheme {
        "tcp" | "tcp4" | "tcp6" => socket_addr(rest).map(Listen::Tcp),
        "udp" | "udp4" | "udp6" => socket_addr(rest).map(Listen::Udp),
        "unix" => {
            let path = PathBuf::from(rest);
            if !path.is_absolute() {
                return Err(format!("unix socket path '{rest}' is not absolute (write unix:///PATH)"));
            }
            if path.file_name().is_none() {
                return Err(format!("unix socket path '{rest}' names no file"));
            }
            Ok(Listen::Unix(path))
        }
        other => Err(format!("unknown scheme '{other}'; expected tcp, udp or unix")),
    }
}

fn socket_addr(rest: &str) -> Result<SocketAddr, String> {
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let Some((host, port)) = rest.rsplit_once(':') else {
        return Err(format!("'{rest}' has no port; expected HOST:PORT"));
    };
    let host = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    let ip: IpAddr =
        host.parse().map_err(|_| format!("host '{host}' is not an IP address (such as 127.0.0.1 or [::1])"))?;
    let port: u16 = port.parse().map_err(|_| format!("port '{port}' is not a number from 0 to 65535"))?;
    Ok(SocketAddr::new(ip, port))
}

impl Listen {
    /// The URI of a face listening here (with the port it got).
    pub fn uri(&self) -> String {
        match self {
            Listen::Tcp(a) => format!("tcp://{a}"),
            Listen::Udp(a) => format!("udp://{a}"),
            Listen::Unix(p) => format!("unix://{}", p.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_transports_parse() {
        let f = parse_face("P=tcp://127.0.0.1:6363").unwrap();
        assert_eq!((f.node.as_str(), f.listen.uri()), ("P", "tcp://127.0.0.1:6363".to_owned()));
        assert_eq!(parse_uri("udp://[::1]:0").unwrap().uri(), "udp://[::1]:0");
        assert_eq!(parse_uri("unix:///tmp/x.sock").unwrap(), Listen::Unix("/tmp/x.sock".into()));
    }

    #[test]
    fn bad_uris_say_what_is_wrong() {
        for (arg, says) in [
            ("tcp://127.0.0.1:6363", "NODE=URI"),
            ("=tcp://127.0.0.1:1", "empty"),
            ("P=tcp://localhost:1", "IP address"),
            ("P=tcp://127.0.0.1:70000", "0 to 65535"),
            ("P=tcp://127.0.0.1", "no port"),
            ("P=http://127.0.0.1:1", "unknown scheme"),
            ("P=unix://rel.sock", "not absolute"),
            ("P=127.0.0.1:1", "not a URI"),
        ] {
            let e = parse_face(arg).unwrap_err();
            assert!(e.contains(says), "{arg}: {e}");
        }
    }
}
