//! The lookup form takes what people paste (issue 23, point 5), over a real
//! loopback socket: `/?ip=` with surrounding whitespace, brackets, ports, a
//! URL whose host is an address, a CIDR length, an IPv6 zone and AS numbers
//! redirects to the page meant; an input it cannot use is a 400 whose page
//! has a human headline, gives the input back in the box with the reason
//! and a suggestion, and links home and the docs, in all four formats (an
//! Error body in JSON).

use std::net::SocketAddr;
use std::sync::OnceLock;

use crate::support::{self, wire};

const CHROME: (&str, &str) = (
    "User-Agent",
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
);

fn server() -> SocketAddr {
    static ADDR: OnceLock<SocketAddr> = OnceLock::new();
    *ADDR.get_or_init(|| support::background(support::config()).addr)
}

/// `/?ip=` with `input` percent-encoded as a browser's form would.
fn form(input: &str) -> String {
    let mut q = String::new();
    for b in input.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                q.push(b as char)
            }
            b' ' => q.push('+'),
            _ => q.push_str(&format!("%{b:02X}")),
        }
    }
    format!("/?ip={q}")
}

#[test]
fn pasted_addresses_as_numbers_prefixes_and_countries_go_to_their_page() {
    for (input, location) in [
        (" 8.8.8.8 ", "/8.8.8.8"),
        ("\t8.8.8.8\r\n", "/8.8.8.8"),
        ("\u{a0}8.8.8.8", "/8.8.8.8"),
        ("[2001:db8::1]:443", "/2001:db8::1"),
        ("[2001:db8::1]", "/2001:db8::1"),
        ("1.2.3.4:80", "/1.2.3.4"),
        ("https://1.2.3.4/x", "/1.2.3.4"),
        (
            "http://[2001:4860:4860::8888]:8080/path?q=1",
            "/2001:4860:4860::8888",
        ),
        ("8.8.8.0/24", "/8.8.8.0/24"),
        ("8.8.8.8/24", "/8.8.8.8"),
        ("2001:4860::/32", "/2001:4860::/32"),
        ("BD", "/country/BD"),
        ("bd", "/country/BD"),
        ("Bangladesh", "/country/BD"),
        ("বাংলাদেশ", "/country/BD"),
        ("fe80::1%eth0", "/fe80::1"),
        ("\"8.8.8.8\"", "/8.8.8.8"),
        ("AS15169", "/AS15169"),
        ("as15169", "/AS15169"),
        (" AS 15169 ", "/AS15169"),
        ("ASN15169", "/AS15169"),
        ("15169", "/AS15169"),
    ] {
        for ua in [CHROME, ("User-Agent", "curl/8.14.1")] {
            let target = form(input);
            let r = wire::get_blocking(server(), &target, &[ua]);
            assert_eq!(r.status, 303, "{input:?} ({target}): {}", r.body);
            assert_eq!(r.header("location"), Some(location), "{input:?}");
        }
        // And the page it lands on answers.
        let landed = wire::get_blocking(server(), location, &[("User-Agent", "curl/8.14.1")]);
        assert_eq!(landed.status, 200, "{location}: {}", landed.body);
    }
}

#[test]
fn an_unusable_input_comes_back_with_the_reason_and_a_suggestion() {
    for (input, code, reason) in [
        ("1.2.3", "invalid_ip", "four numbers separated by dots"),
        ("1.2.3.999", "invalid_ip", "at most 255"),
        ("google.com", "invalid_ip", "dig +short google.com"),
        ("https://example.org/x", "invalid_ip", "is a host name"),
        (
            "AS99999999999",
            "invalid_asn",
            "AS numbers go from 0 to 4294967295",
        ),
        ("<script>x</script>", "invalid_ip", "looks like 8.8.8.8"),
    ] {
        let target = form(input);
        // HTML for a browser: a human headline, the input in the box.
        let r = wire::get_blocking(server(), &target, &[CHROME]);
        assert_eq!(r.status, 400, "{input:?}: {}", r.body);
        assert!(r.must("content-type").starts_with("text/html"), "{input:?}");
        let h1 = r
            .body
            .split("id=\"error\">")
            .nth(1)
            .and_then(|h| h.split("</h1>").next())
            .unwrap();
        assert!(
            !h1.contains("400") && !h1.contains("Bad Request"),
            "{input:?}: {h1}"
        );
        assert!(h1.starts_with("That is not"), "{input:?}: {h1}");
        let escaped = input
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;");
        assert!(
            r.body
                .contains(&format!("<input name=\"ip\" value=\"{escaped}\"")),
            "{input:?}: the input is not back in the box:\n{}",
            r.body
        );
        assert!(!r.body.contains("<script>x"), "{input:?}: unescaped");
        assert!(
            r.body.contains(&reason.replace('"', "&quot;")),
            "{input:?}: no {reason:?} in\n{}",
            r.body
        );
        assert!(r.body.contains("<a href=\"/\">Home</a>"), "{input:?}");
        assert!(r.body.contains("<a href=\"/docs\""), "{input:?}");
        // JSON: the Error body.
        let j = wire::get_blocking(server(), &format!("{target}&format=json"), &[CHROME]);
        assert_eq!(j.status, 400);
        let v = j.json();
        assert_eq!(v["error"], code, "{v}");
        assert!(v["message"].as_str().unwrap().contains(reason), "{v}");
        // Text for curl, Markdown on Accept.
        let t = wire::get_blocking(server(), &target, &[("User-Agent", "curl/8.14.1")]);
        assert_eq!(t.status, 400);
        assert!(t.must("content-type").starts_with("text/plain"));
        assert!(
            t.body.contains(&format!("error:   {code}")) || t.body.contains(code),
            "{}",
            t.body
        );
        assert!(t.body.contains(reason), "{input:?}: {}", t.body);
        let m = wire::get_blocking(server(), &target, &[CHROME, ("Accept", "text/markdown")]);
        assert_eq!(m.status, 400);
        assert!(m.body.starts_with("# Error: That is not"), "{}", m.body);
        assert!(
            m.body.contains("[Home](/)") && m.body.contains("(/docs)"),
            "{}",
            m.body
        );
    }
}

/// Every error page has a human headline, not a status line.
#[test]
fn error_pages_have_human_headlines() {
    for (target, status, headline) in [
        ("/no-such-page", 404, "There is no page here"),
        ("/1.2.3", 400, "That is not an address we can look up"),
        ("/AS99999999999", 400, "That is not an AS number"),
        ("/8.8.8.8?format=xml", 400, "There is no such format"),
    ] {
        let r = wire::get_blocking(server(), target, &[CHROME]);
        assert_eq!(r.status, status, "{target}: {}", r.body);
        assert!(
            r.body.contains(&format!("id=\"error\">{headline}</h1>")),
            "{target}:\n{}",
            r.body
        );
        assert!(
            r.body
                .contains(&format!("<title>{headline} · iplookup</title>")),
            "{target}"
        );
        assert!(r.body.contains("<a href=\"/\">Home</a>"), "{target}");
    }
}

/// The error pages in Bangla (issue 23 point 7): the headline, the status
/// in Bengali digits, the reason and suggestion of the search box and the
/// message of an address path in Bangla, in HTML, text and Markdown; the
/// JSON Error body stays English.
#[test]
fn error_pages_speak_bangla() {
    let bn = ("Accept-Language", "bn");
    for (target, status, reason) in [
        (form("999.1.1.1"), 400, "প্রতিটি সর্বোচ্চ ২৫৫"),
        (form("1.2.3.4:99999"), 400, "৬৫,৫৩৫"),
        (form("google.com"), 400, "একটি হোস্টের নাম"),
        (form("AS99999999999"), 400, "৪,২৯,৪৯,৬৭,২৯৫"),
        ("/1.2.3".to_owned(), 400, "৪টি সংখ্যা"),
        ("/no-such-page".to_owned(), 404, "কোনো পৃষ্ঠা নেই"),
    ] {
        let r = wire::get_blocking(server(), &target, &[CHROME, bn]);
        assert_eq!(r.status, status, "{target}: {}", r.body);
        assert_eq!(r.must("content-language"), "bn", "{target}");
        let digits = bengali(status);
        assert!(
            r.body.contains(&format!("ত্রুটি {digits}</p>")),
            "{target}: the status in Bengali digits:\n{}",
            r.body
        );
        let lead = r
            .body
            .split("id=\"error-message\">")
            .nth(1)
            .and_then(|h| h.split("</p>").next())
            .unwrap();
        assert!(lead.contains(reason), "{target}: {lead}");
        // No English sentence on the page: the message is not marked as
        // English and none of the English reasons is in it.
        assert!(!r.body.contains("lang=\"en\">&quot;"), "{target}");
        for english in ["is not", "a host name", "no such page", "AS numbers go"] {
            assert!(
                !r.body.contains(english),
                "{target}: {english:?} in\n{}",
                r.body
            );
        }
        let t = wire::get_blocking(server(), &target, &[("User-Agent", "curl/8.14.1"), bn]);
        assert!(t.body.contains(reason), "{target}: {}", t.body);
        assert!(
            t.body.contains(&format!("HTTP অবস্থা: {digits}")),
            "{}",
            t.body
        );
        let m = wire::get_blocking(
            server(),
            &target,
            &[CHROME, bn, ("Accept", "text/markdown")],
        );
        assert!(m.body.starts_with("# ত্রুটি: "), "{}", m.body);
        assert!(m.body.contains(reason), "{target}: {}", m.body);
        let sep = if target.contains('?') { '&' } else { '?' };
        let j = wire::get_blocking(
            server(),
            &format!("{target}{sep}format=json"),
            &[CHROME, bn],
        );
        let message = j.json()["message"].as_str().unwrap_or_default().to_owned();
        assert!(
            message.is_ascii() && !message.is_empty(),
            "{target}: JSON {message}"
        );
    }
    // The address path gives its input back in the box.
    let r = wire::get_blocking(server(), "/1.2.3", &[CHROME]);
    assert!(
        r.body.contains("<input name=\"ip\" value=\"1.2.3\""),
        "{}",
        r.body
    );
}

/// `n` in Bengali digits (written here, not taken from the server's code).
fn bengali(n: u16) -> String {
    n.to_string()
        .chars()
        .map(|c| ['০', '১', '২', '৩', '৪', '৫', '৬', '৭', '৮', '৯'][c as usize - '0' as usize])
        .collect()
}
