//! The one error type of the scenario layer, and the tidying of serde's messages.

use std::fmt;

/// A problem with a scenario, located as precisely as the input allows.
///
/// Displays as `file:line: key: message`, leaving out the parts that are unknown, e.g.
/// `scenarios/x.toml:14: links.R1-R2.queue: unknown variant 'codle', expected one of droptail`.
/// When the offending value came from a command-line override it displays as
/// `file: --set key: message` instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ScenarioError {
    /// The file (or other origin) the scenario was read from; empty for scenarios built in code.
    pub file: String,
    /// 1-based line of the offending key in `file`, when known.
    pub line: Option<usize>,
    /// Dotted path of the offending key, e.g. `links.R1-R2.queue` or `routes[2].nexthop`.
    pub key: Option<String>,
    /// True when the value at `key` was set by an override (`--set key=value`), not the file.
    pub from_override: bool,
    /// What is wrong, and what would be accepted.
    pub message: String,
}

impl ScenarioError {
    /// An error with only a file and a message.
    pub fn new(file: &str, message: impl Into<String>) -> ScenarioError {
        let message = shorten(&message.into());
        ScenarioError { file: file.to_string(), line: None, key: None, from_override: false, message }
    }

    pub(crate) fn at(
        file: &str,
        line: Option<usize>,
        key: Option<String>,
        message: impl Into<String>,
    ) -> ScenarioError {
        let message = shorten(&message.into());
        ScenarioError { file: file.to_string(), line, key, from_override: false, message }
    }

    pub(crate) fn from_set(file: &str, key: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            file: file.to_string(),
            line: None,
            key: Some(key.to_string()),
            from_override: true,
            message: shorten(&message.into()),
        }
    }
}

/// Longest quoted value a message repeats in full [characters]; a longer one is cut.
pub const MAX_QUOTED: usize = 80;
/// Longest word (a run without spaces) a message or key repeats in full [characters].
pub const MAX_WORD: usize = 200;

/// `text` with each quoted value longer than `MAX_QUOTED` characters, and each other word
/// longer than `MAX_WORD`, cut short with an ellipsis and its length: a message names a value,
/// it need not repeat 5,000 characters of it. A quote opens after a space, a bracket or the
/// start, and closes before a space, punctuation or the end (so the `'` of "consumer's" is no
/// quote).
pub fn shorten(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len().min(4 * MAX_WORD));
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let opens = matches!(c, '\'' | '"' | '`') && (i == 0 || " ([{=:,".contains(chars[i - 1]));
        if opens {
            let close = (i + 1..chars.len())
                .find(|&j| chars[j] == c && chars.get(j + 1).is_none_or(|n| " ,;:.)]}".contains(*n)));
            if let Some(j) = close {
                out.push(c);
                push_cut(&mut out, &chars[i + 1..j], MAX_QUOTED);
                out.push(c);
                i = j + 1;
                continue;
            }
        }
        if c.is_whitespace() {
            out.push(c);
            i += 1;
            continue;
        }
        let end = (i..chars.len()).find(|&j| chars[j].is_whitespace()).unwrap_or(chars.len());
        let word = &chars[i..end];
        if word.len() > MAX_WORD {
            push_cut(&mut out, word, MAX_WORD);
            i = end;
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// Characters a cut value's ending (`… (5000 characters)`) may take: a cut value is no longer
/// than the limit either, so a message cut twice reads as one cut once.
const CUT_ENDING: usize = 24;

/// `s`, or when it is longer than `max` characters its start, an ellipsis and its length, in
/// `max` characters at most.
fn push_cut(out: &mut String, s: &[char], max: usize) {
    if s.len() <= max {
        out.extend(s);
    } else {
        out.extend(&s[..max - CUT_ENDING]);
        out.push_str(&format!("… ({} characters)", s.len()));
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        let mut head = self.file.clone();
        if let (Some(line), false) = (self.line, self.from_override) {
            if head.is_empty() {
                head = format!("line {line}");
            } else {
                head = format!("{head}:{line}");
            }
        }
        if !head.is_empty() {
            parts.push(head);
        }
        match (self.key.as_deref().map(shorten), self.from_override) {
            (Some(k), true) => parts.push(format!("--set {k}")),
            (Some(k), false) => parts.push(k),
            (None, true) => parts.push("--set".to_string()),
            (None, false) => {}
        }
        parts.push(self.message.clone());
        f.write_str(&parts.join(": "))
    }
}

/// A validation failure before it is given a file and line: the dotted key and the message.
pub(crate) use crate::plugin::Invalid;

/// Rewrite a serde or TOML message into the project's style: quoted names in single quotes,
/// and accepted alternatives as a plain list (`expected one of droptail, codel`).
pub(crate) fn tidy_message(msg: &str) -> String {
    let one_line = msg.lines().map(str::trim).filter(|l| !l.is_empty()).collect::<Vec<_>>().join("; ");
    if !one_line.contains('`') {
        return match one_line.split_once(", expected ") {
            Some((head, tail)) => format!("{head}, expected {}", plain_expectation(tail)),
            None => one_line,
        };
    }
    let (head, tail) = match one_line.find(", expected ") {
        Some(i) => (&one_line[..i], Some(&one_line[i + ", expected ".len()..])),
        None => (one_line.as_str(), None),
    };
    let mut out = head.replace('`', "'");
    if let Some(tail) = tail.map(plain_expectation) {
        let names = backticked(tail);
        if names.is_empty() {
            out.push_str(", expected ");
            out.push_str(tail);
        } else {
            out.push_str(", expected one of ");
            out.push_str(&names.join(", "));
        }
    }
    out
}

/// Serde names Rust types in what it expected; say it in scenario terms instead.
fn plain_expectation(tail: &str) -> &str {
    if tail.starts_with("struct ") || tail.starts_with("a map") {
        "a table"
    } else if tail.starts_with("internally tagged enum") {
        "a table with a `type` key"
    } else if matches!(tail, "u8" | "u16" | "u32" | "u64" | "usize") {
        "a non-negative integer"
    } else if matches!(tail, "i8" | "i16" | "i32" | "i64" | "isize") {
        "an integer"
    } else if matches!(tail, "f32" | "f64") {
        "a number"
    } else {
        tail
    }
}

/// The names between backticks in `s`, in order.
fn backticked(s: &str) -> Vec<&str> {
    s.split('`').skip(1).step_by(2).collect()
}

/// The name between the first pair of backticks, if any (serde quotes field names so).
pub(crate) fn first_backticked(s: &str) -> Option<&str> {
    backticked(s).into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_leaves_out_unknown_parts() {
        let e = ScenarioError::at("x.toml", Some(14), Some("links.A-B.queue".into()), "bad");
        assert_eq!(e.to_string(), "x.toml:14: links.A-B.queue: bad");
        assert_eq!(ScenarioError::new("x.toml", "bad").to_string(), "x.toml: bad");
        let e = ScenarioError::at("", None, Some("apps.C1".into()), "bad");
        assert_eq!(e.to_string(), "apps.C1: bad");
    }

    #[test]
    fn long_values_are_cut_short_in_messages_and_keys() {
        let long = "x".repeat(5000);
        let e = ScenarioError::at("x.toml", Some(3), Some(format!("nodes.{long}")), format!("'{long}' is not a node"));
        let shown = e.to_string();
        assert!(shown.len() < 600, "{}", shown.len());
        let cut = format!("'{}… (5000 characters)' is not a node", "x".repeat(MAX_QUOTED - CUT_ENDING));
        assert!(shown.contains(&cut), "{shown}");
        assert!(
            shown.contains(&format!("nodes.{}… (5006 characters)", "x".repeat(MAX_WORD - CUT_ENDING - 6))),
            "{shown}"
        );
        // Cut once is cut for good.
        assert_eq!(shorten(&shown), shown);
        // Short values, apostrophes and plain prose are left alone.
        let text = "the consumer's 'abc' is \"ok\" (see `x`)";
        assert_eq!(shorten(text), text);
    }

    #[test]
    fn override_errors_display_the_set_flag() {
        let e = ScenarioError::from_set("x.toml", "simulation.seed", "bad");
        assert_eq!(e.to_string(), "x.toml: --set simulation.seed: bad");
    }

    #[test]
    fn serde_lists_become_plain_lists() {
        assert_eq!(
            tidy_message("unknown variant `codle`, expected one of `droptail`, `codel`"),
            "unknown variant 'codle', expected one of droptail, codel"
        );
        assert_eq!(
            tidy_message("unknown variant `x`, expected `a` or `b`"),
            "unknown variant 'x', expected one of a, b"
        );
        assert_eq!(tidy_message("missing field `duration`"), "missing field 'duration'");
        assert_eq!(
            tidy_message("invalid type: integer `5`, expected a string"),
            "invalid type: integer '5', expected a string"
        );
        assert_eq!(
            tidy_message("invalid value: integer `-1`, expected u64"),
            "invalid value: integer '-1', expected a non-negative integer"
        );
        assert_eq!(
            tidy_message("invalid type: integer `5`, expected struct NodeSpec"),
            "invalid type: integer '5', expected a table"
        );
        assert_eq!(
            tidy_message("invalid type: string \"x\", expected f64"),
            "invalid type: string \"x\", expected a number"
        );
    }
}
