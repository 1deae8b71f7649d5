//! The protocol's framing on standard input and output, read with limits: `lsp-server`'s own
//! stdio transport trusts the `Content-Length` header (`Content-Length:
//! 18446744073709551615` panicked, `8000000000` zero-filled gigabytes before reading a byte).
//!
//! A header line is at most [`MAX_HEADER_LINE`] bytes; a message body at most
//! [`MAX_MESSAGE_BYTES`] (64 MiB, the size of the largest file `check` reads by default,
//! `--max-file-size`). A header the framing cannot go on from (no `Content-Length`, a length
//! that is not a number or is over the limit, a line that does not end in CRLF or is too
//! long) ends the session at once with that error (exit status 2, the message on standard
//! error): the body is not awaited; so does a body that is not a JSON-RPC message, as
//! `lsp-server` ends it (what sends it is no editor).

use std::io::{self, BufRead, Read, Write};

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Connection, Message};

/// The longest message accepted, in bytes.
pub(crate) const MAX_MESSAGE_BYTES: u64 = 64 << 20;

/// The longest header line accepted, in bytes (`Content-Length: …` and
/// `Content-Type: …` are a few dozen).
pub(crate) const MAX_HEADER_LINE: u64 = 1024;

/// What was read from the client.
#[derive(Debug)]
pub(crate) enum Frame {
    /// A message.
    Message(Message),
    /// The end of the input.
    End,
}

/// One header line without its CRLF; `None` at the end of the input.
fn header_line(r: &mut impl BufRead) -> io::Result<Option<String>> {
    let mut line = Vec::new();
    r.take(MAX_HEADER_LINE + 1).read_until(b'\n', &mut line)?;
    if line.is_empty() {
        return Ok(None);
    }
    let Some(line) = line.strip_suffix(b"\r\n") else {
        let why = if line.len() as u64 > MAX_HEADER_LINE {
            format!("a header line is longer than {MAX_HEADER_LINE} bytes")
        } else {
            "a header line does not end in CRLF".to_string()
        };
        return Err(io::Error::new(io::ErrorKind::InvalidData, why));
    };
    Ok(Some(String::from_utf8_lossy(line).into_owned()))
}

/// Reads one framed message.
pub(crate) fn read(r: &mut impl BufRead) -> io::Result<Frame> {
    let invalid = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
    let mut length: Option<u64> = None;
    let mut first = true;
    loop {
        let Some(line) = header_line(r)? else {
            return if first {
                Ok(Frame::End)
            } else {
                Err(invalid(
                    "the input ends inside a message's header".to_string(),
                ))
            };
        };
        first = false;
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(invalid(format!(
                "malformed header line `{}`",
                crate::util::text::escape(&line)
            )));
        };
        if name.trim().eq_ignore_ascii_case("Content-Length") {
            let value = value.trim();
            let n = value
                .bytes()
                .all(|b| b.is_ascii_digit())
                .then(|| value.parse::<u64>().ok())
                .flatten()
                .filter(|_| !value.is_empty());
            length = Some(n.ok_or_else(|| {
                invalid(format!(
                    "`Content-Length: {}` is not a length",
                    crate::util::text::escape(value)
                ))
            })?);
        }
    }
    let length = length.ok_or_else(|| invalid("a message has no Content-Length".to_string()))?;
    if length > MAX_MESSAGE_BYTES {
        // Refused as soon as the header says so (#49): reading past the body would wait for
        // bytes a hostile client never sends (`Content-Length: 8000000000` with the input
        // kept open), and no editor sends a message this large. The next message's start is
        // past the body: the session ends.
        return Err(invalid(format!(
            "a message of {length} bytes is over the limit of {MAX_MESSAGE_BYTES} bytes"
        )));
    }
    let mut body = Vec::with_capacity(usize::try_from(length).unwrap_or(0));
    r.take(length).read_to_end(&mut body)?;
    if (body.len() as u64) < length {
        return Err(invalid(format!(
            "the input ends inside a message of {length} bytes"
        )));
    }
    serde_json::from_slice::<Message>(&body)
        .map(Frame::Message)
        .map_err(|e| {
            invalid(format!(
                "a message of {length} bytes is not a JSON-RPC message ({})",
                crate::util::text::escape(&e.to_string())
            ))
        })
}

/// The reader, writer threads and their errors (see [`stdio`]).
pub(crate) struct IoThreads {
    reader: std::thread::JoinHandle<io::Result<()>>,
    writer: std::thread::JoinHandle<io::Result<()>>,
}

impl IoThreads {
    /// Waits for both threads; the reader's error first (a broken framing).
    pub(crate) fn join(self) -> io::Result<()> {
        let read = self
            .reader
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the reader thread panicked")));
        let written = self
            .writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the writer thread panicked")));
        read.and(written)
    }
}

/// Reads messages from `input` into `to` until the end, an `exit` notification or a broken
/// framing (or a message over the limit).
fn pump(mut input: impl BufRead, to: &Sender<Message>) -> io::Result<()> {
    loop {
        match read(&mut input) {
            Ok(Frame::Message(m)) => {
                let exit = matches!(&m, Message::Notification(n) if n.method == "exit");
                if to.send(m).is_err() || exit {
                    return Ok(());
                }
            }
            Ok(Frame::End) => return Ok(()),
            Err(e) => {
                let e = io::Error::new(
                    e.kind(),
                    format!("language server input: {e}; the session ends"),
                );
                return Err(e);
            }
        }
    }
}

/// A connection on standard input and output, as `lsp_server::Connection::stdio` makes one,
/// but reading with the limits above.
pub(crate) fn stdio() -> (Connection, IoThreads) {
    let (writer_tx, writer_rx): (Sender<Message>, Receiver<Message>) =
        crossbeam_channel::bounded(0);
    let (reader_tx, reader_rx) = crossbeam_channel::bounded(0);
    let writer = std::thread::Builder::new()
        .name("taintlint-writer".into())
        .spawn(move || {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            for m in writer_rx {
                m.write(&mut out)?;
                out.flush()?;
            }
            Ok(())
        });
    let reader = std::thread::Builder::new()
        .name("taintlint-reader".into())
        .spawn(move || {
            let stdin = io::stdin();
            pump(stdin.lock(), &reader_tx)
        });
    let failed = |e: io::Error| std::thread::spawn(move || Err(e));
    let threads = IoThreads {
        reader: reader.unwrap_or_else(failed),
        writer: writer.unwrap_or_else(failed),
    };
    (
        Connection {
            sender: writer_tx,
            receiver: reader_rx,
        },
        threads,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &str) -> Vec<u8> {
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    }

    fn read_all(input: &[u8]) -> Vec<Result<String, String>> {
        let mut r = io::BufReader::new(input);
        let mut out = Vec::new();
        loop {
            match read(&mut r) {
                Ok(Frame::Message(m)) => out.push(Ok(format!("{m:?}"))),
                Ok(Frame::End) => return out,
                Err(e) => {
                    out.push(Err(format!("fatal: {e}")));
                    return out;
                }
            }
        }
    }

    const EXIT: &str = r#"{"jsonrpc":"2.0","method":"exit"}"#;

    #[test]
    fn messages_are_read_in_turn() {
        let mut input = frame(EXIT);
        input.extend(
            format!(
                "content-length:  {} \r\nContent-Type: x\r\n\r\n",
                EXIT.len()
            )
            .bytes(),
        );
        input.extend(EXIT.as_bytes());
        let got = read_all(&input);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got.iter().all(Result::is_ok), "{got:?}");
    }

    /// The issue's lengths: refused without allocating them; the input ends inside, so the
    /// session ends with a clear error, not a panic.
    #[test]
    fn huge_lengths_are_refused_not_allocated() {
        for length in ["18446744073709551615", "8000000000"] {
            let input = format!("Content-Length: {length}\r\n\r\n{EXIT}");
            let got = read_all(input.as_bytes());
            assert_eq!(got.len(), 1, "{got:?}");
            let e = got[0].as_ref().expect_err("refused");
            assert!(e.contains("fatal") && e.contains(length), "{e}");
        }
        // A length past `u64`, negative, hexadecimal or missing.
        for bad in [
            "Content-Length: 99999999999999999999999\r\n\r\n",
            "Content-Length: -1\r\n\r\n",
            "Content-Length: 0x10\r\n\r\n",
            "Content-Length: \r\n\r\n",
            "Content-Type: x\r\n\r\n",
            "Content-Length: 3\n\n",
        ] {
            let got = read_all(bad.as_bytes());
            assert!(
                matches!(got.as_slice(), [Err(e)] if e.starts_with("fatal")),
                "{bad:?}: {got:?}"
            );
        }
    }

    /// A message over the limit is refused as soon as its header is read, before a byte of
    /// its body: the input here ends right after the header, so a reader that waited for the
    /// body would say the input ended inside it.
    #[test]
    fn an_oversized_message_is_refused_at_its_header() {
        let big = MAX_MESSAGE_BYTES + 1;
        let input = format!("Content-Length: {big}\r\n\r\n").into_bytes();
        let got = read_all(&input);
        assert!(
            matches!(got.as_slice(), [Err(e)] if e.starts_with("fatal") && e.contains("over the limit")),
            "{got:?}"
        );
        // At the limit: read.
        let at = format!("Content-Length: {}\r\n\r\n{EXIT}", EXIT.len());
        assert!(matches!(read_all(at.as_bytes()).as_slice(), [Ok(_)]));
    }

    #[test]
    fn an_endless_header_line_is_refused() {
        let input = vec![b'A'; 1 << 20];
        let got = read_all(&input);
        assert!(
            matches!(got.as_slice(), [Err(e)] if e.contains("longer than")),
            "{got:?}"
        );
    }
}
