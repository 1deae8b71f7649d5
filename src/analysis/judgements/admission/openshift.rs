//! OpenShift 4's project node selector: the `scheduling.openshift.io/OriginPodNodeEnvironment`
//! admission plugin of the OpenShift kube-apiserver (openshift/kubernetes
//! `openshift-kube-apiserver/admission/scheduler/nodeenv/admission.go`, the successor of
//! openshift/origin's `pkg/project/admission/nodeenv`), on by default there. On pod creation:
//!
//! - a namespace with `scheduler.alpha.kubernetes.io/node-selector` (present, even empty) is
//!   left to PodNodeSelector: the plugin does nothing;
//! - else the selector is the namespace's `openshift.io/node-selector` (present, even empty),
//!   else the cluster default (`spec.defaultNodeSelector` of the `Scheduler` named `cluster`,
//!   config.openshift.io/v1), parsed by `labelselector.Parse` of openshift/apiserver-library-go
//!   (`pkg/labelselector/labelselector.go`, reproduced by [`parse`]); a parse error is returned
//!   as it is;
//! - a key the pod sets to another value rejects the pod (`NewForbidden`, "pod node label
//!   selector conflicts with its project node label selector"); else the project selector is
//!   merged under the pod's (`labelselector.Merge`, the pod's values win).
//!
//! Its validation pass ("pod node label selector does not extend project node label
//! selector") cannot fail on a pod the mutation pass admitted unless a webhook rewrote the
//! selector, which taintlint does not model. Nor does it check a pod's `spec.nodeName`
//! against the selector ("pod node name conflicts with project node label selector").

use super::merge::Selector;
use crate::analysis::semantics::validation::{
    go_quote, invalid, label_key_errors, label_value_errors,
};
use crate::settings::Settings;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Token {
    End,
    Comma,
    Equals,
    Ident,
}

/// The lexer of `labelselector`: whitespace separates, `=` and `,` are tokens of their own,
/// anything else runs into an identifier. A NUL byte ends the input (`Lexer.read` returns 0).
fn lex(text: &str) -> Vec<(Token, &str)> {
    let text = text.split('\0').next().unwrap_or_default();
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches([' ', '\t', '\r', '\n']);
        let Some(c) = rest.chars().next() else {
            out.push((Token::End, ""));
            return out;
        };
        let len = match c {
            '=' | ',' => 1,
            _ => rest
                .find(['=', ',', ' ', '\t', '\r', '\n'])
                .unwrap_or(rest.len()),
        };
        let (lit, tail) = rest.split_at(len);
        let tok = match lit {
            "=" => Token::Equals,
            "," => Token::Comma,
            _ => Token::Ident,
        };
        out.push((tok, lit));
        rest = tail;
    }
}

/// `Parser.consume`: past the end, the end of the input.
fn take<'a>(tokens: &[(Token, &'a str)], at: &mut usize) -> (Token, &'a str) {
    *at += 1;
    tokens.get(*at - 1).copied().unwrap_or((Token::End, ""))
}

const QUALIFIED_NAME: &str = "must match format [ DNS 1123 subdomain / ] DNS 1123 label";

/// `labelselector.Parse`: `k1=v1, k2 = v2`, exact matches only; `Err` with its message.
pub fn parse(text: &str, settings: &Settings) -> Result<Selector, String> {
    let tokens = lex(text);
    let mut at = 0;
    let mut out = Selector::new();
    loop {
        let (tok, lit) = take(&tokens, &mut at);
        match tok {
            Token::End => return Ok(out),
            Token::Ident => {}
            _ => {
                return Err(format!(
                    "found '{lit}', expected: identifier or 'end of string'"
                ));
            }
        }
        let key = lit;
        let requirement = |e: String| format!("unable to parse requirement: {e}");
        if !label_key_errors(key, settings).is_empty() {
            return Err(requirement(invalid(
                "label key",
                &go_quote(key),
                QUALIFIED_NAME,
            )));
        }
        let (tok, lit) = take(&tokens, &mut at);
        if tok != Token::Equals {
            return Err(requirement(format!("found '{lit}', expected: '='")));
        }
        // `parseExactValue`: the value may be empty.
        let (tok, lit) = take(&tokens, &mut at);
        let (value, after) = match tok {
            Token::End | Token::Comma => ("", (tok, lit)),
            Token::Ident => {
                if !label_value_errors(lit, settings).is_empty() {
                    return Err(requirement(invalid(
                        "label value",
                        &go_quote(lit),
                        QUALIFIED_NAME,
                    )));
                }
                (lit, take(&tokens, &mut at))
            }
            Token::Equals => {
                return Err(requirement(format!("found '{lit}', expected: identifier")));
            }
        };
        out.insert(key.to_string(), value.to_string());
        match after {
            (Token::End, _) => return Ok(out),
            (Token::Comma, _) => {
                // The identifier the loop takes next.
                let (tok, lit) = take(&tokens, &mut at);
                if tok != Token::Ident {
                    return Err(format!("found '{lit}', expected: identifier after ','"));
                }
                at -= 1; // `lookahead`: the loop takes it.
            }
            (_, lit) => {
                return Err(format!("found '{lit}', expected: ',' or 'end of string'"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Vec<String> {
        parse(text, &Settings::default())
            .unwrap_or_else(|e| panic!("{text}: {e}"))
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect()
    }

    fn err(text: &str) -> String {
        parse(text, &Settings::default()).expect_err(text)
    }

    /// The cases of `TestLabelSelectorParse` (pkg/labelselector/labelselector_test.go).
    #[test]
    fn parses_as_apiserver_library_go() {
        assert!(ok("").is_empty());
        assert!(ok("   ").is_empty());
        assert_eq!(ok("x=a"), ["x=a"]);
        assert_eq!(ok("x = a, y=b ,z  = c  "), ["x=a", "y=b", "z=c"]);
        assert_eq!(
            ok("node-role.kubernetes.io/infra=,x=y,a="),
            ["a=", "node-role.kubernetes.io/infra=", "x=y"]
        );
        assert_eq!(ok("x=a\0,junk"), ["x=a"]);
        for (text, want) in [
            (",", "found ',', expected: identifier or 'end of string'"),
            ("x", "unable to parse requirement: found '', expected: '='"),
            (
                "x,y",
                "unable to parse requirement: found ',', expected: '='",
            ),
            (
                "x in (y)",
                "unable to parse requirement: found 'in', expected: '='",
            ),
            (
                "x y",
                "unable to parse requirement: found 'y', expected: '='",
            ),
            (
                "x==y",
                "unable to parse requirement: found '=', expected: identifier",
            ),
            ("x=a,", "found '', expected: identifier after ','"),
            ("x=a,,y=b", "found ',', expected: identifier after ','"),
            ("x=a b=c", "found 'b', expected: ',' or 'end of string'"),
            (
                "x=$y",
                "unable to parse requirement: label value: Invalid value: \"$y\": must match format [ DNS 1123 subdomain / ] DNS 1123 label",
            ),
            (
                "x!=y",
                "unable to parse requirement: label key: Invalid value: \"x!\": must match format [ DNS 1123 subdomain / ] DNS 1123 label",
            ),
            (
                "x=a||y=b",
                "unable to parse requirement: label value: Invalid value: \"a||y\": must match format [ DNS 1123 subdomain / ] DNS 1123 label",
            ),
        ] {
            assert_eq!(err(text), want, "{text}");
        }
    }
}
