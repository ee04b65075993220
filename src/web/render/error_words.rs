//! What an error page says in the reader's language. In English it is the
//! `Error` body's own message (the JSON's). In Bangla the JSON stays English
//! and the page says it in Bangla: for what the lookup form or an address
//! path could not use (the page holds that input), the reason and the
//! suggestion of [`crate::web::serve::search`]; for every other error a sentence
//! per code. The words of each code are declared with the code
//! ([`crate::model::ErrorCode`]'s one declaration).

use super::i18n::Lang;
use super::page::ErrorPage;
use crate::model::ErrorCode;
use crate::web::serve::search::{self, Unusable, Why};

/// The message of `e` in `lang`.
pub(crate) fn message(e: &ErrorPage, lang: Lang) -> String {
    match lang {
        Lang::En => e
            .body
            .message
            .clone()
            .unwrap_or_else(|| e.body.error.as_str().to_owned()),
        Lang::Bn => bangla(e),
    }
}

fn bangla(e: &ErrorPage) -> String {
    let code = e.body.error;
    if matches!(code, ErrorCode::InvalidIp | ErrorCode::InvalidAsn) {
        if let Some(Err(unusable)) = e.input.as_deref().map(search::read) {
            return unusable_bn(&unusable);
        }
    }
    if let Some(sentence) = named_bn(e) {
        return sentence;
    }
    by_code(code).to_owned()
}

/// The sentence of an error that names what it is about: the AS the data
/// does not know (what was typed), the last page of a list (the English
/// message's `?page=N`).
fn named_bn(e: &ErrorPage) -> Option<String> {
    let lang = Lang::Bn;
    match e.body.error {
        ErrorCode::UnknownAsn => {
            let digits: String = e
                .input
                .as_deref()?
                .chars()
                .filter(char::is_ascii_digit)
                .collect();
            let number: u32 = digits.parse().ok()?;
            Some(format!(
                "ডেটায় AS{number} নম্বরের কোনো নেটওয়ার্ক নেই: নম্বরটি হয়তো কাউকে দেওয়া হয়নি, অথবা এই প্রকাশের চেয়ে নতুন।"
            ))
        }
        ErrorCode::NotFound => {
            let last = last_page(e.body.message.as_deref()?)?;
            Some(format!(
                "এই তালিকায় এত পৃষ্ঠা নেই: শেষ পৃষ্ঠা {}, `?page={last}`।",
                lang.count(u128::from(last))
            ))
        }
        _ => None,
    }
}

/// The last page a message names (`?page=N` in backticks), if it names one.
pub(crate) fn last_page(message: &str) -> Option<u64> {
    let (_, rest) = message.split_once("`?page=")?;
    rest.split_once('`')?.0.parse().ok()
}

/// [`Unusable`]'s reason and suggestion in Bangla.
fn unusable_bn(u: &Unusable) -> String {
    let lang = Lang::Bn;
    match u {
        Unusable::TooLong => format!(
            "এটি যেকোনো ঠিকানা বা AS নম্বরের চেয়ে লম্বা ({} অক্ষরের বেশি)। শুধু ঠিকানাটি, যেমন 8.8.8.8, অথবা AS নম্বরটি, যেমন AS15169, পেস্ট করুন।",
            lang.count(300)
        ),
        Unusable::HostName(h) => format!(
            "“{h}” একটি হোস্টের নাম, আর এই সেবা নাম নয়, ঠিকানা খোঁজে। `dig +short {h}` (বা `nslookup {h}`) দিয়ে এর ঠিকানা বের করে সেই ঠিকানাটি খুঁজুন।"
        ),
        Unusable::AsnTooLarge(t) => format!(
            "“{t}” কোনো AS নম্বর নয়: AS নম্বর {} থেকে {} পর্যন্ত। অঙ্কগুলো দেখে নিন, যেমন AS15169।",
            lang.count(0),
            lang.count(u128::from(u32::MAX))
        ),
        Unusable::NotAnAddress { input, why } => format!(
            "“{input}” কোনো IPv4 বা IPv6 ঠিকানা নয়{}। ঠিকানা দেখতে 8.8.8.8 বা 2001:4860:4860::8888-এর মতো, AS নম্বর AS15169-এর মতো।",
            why_bn(*why)
        ),
    }
}

fn why_bn(why: Why) -> String {
    let lang = Lang::Bn;
    match why {
        Why::Unknown => String::new(),
        Why::Port => format!(
            " (ঠিকানার পরের পোর্ট {} থেকে {} পর্যন্ত একটি সংখ্যা)",
            lang.count(1),
            lang.count(65535)
        ),
        Why::Ipv6Groups => format!(
            " (IPv6 ঠিকানায় কোলনে আলাদা করা সর্বোচ্চ {}টি দল থাকে, প্রতিটিতে {} থেকে {}টি হেক্স অঙ্ক, আর :: থাকে বড়জোর একবার)",
            lang.count(8),
            lang.count(1),
            lang.count(4)
        ),
        Why::FourNumbers => format!(" (IPv4 ঠিকানায় বিন্দুতে আলাদা করা {}টি সংখ্যা থাকে)", lang.count(4)),
        Why::LeadingZero => {
            " (শুরুতে শূন্যসহ সংখ্যা, যেমন 010, নেওয়া হয় না: কিছু প্রোগ্রাম এগুলোকে অক্টাল হিসেবে পড়ে)".to_owned()
        }
        Why::Over255 => format!(
            " ({}টি সংখ্যার প্রতিটি সর্বোচ্চ {})",
            lang.count(4),
            lang.count(255)
        ),
    }
}

/// A sentence per error code, for the errors whose input the page does not
/// hold ([`ErrorCode::words`]).
fn by_code(code: ErrorCode) -> &'static str {
    code.words().bn_says
}

/// The headline of an error page in `lang`: what happened, in words
/// ([`ErrorCode::words`]).
pub(crate) fn headline(code: ErrorCode, lang: Lang) -> &'static str {
    match lang {
        Lang::En => code.words().en,
        Lang::Bn => code.words().bn,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model;
    use axum::http::StatusCode;

    fn page(code: ErrorCode, input: Option<&str>) -> ErrorPage {
        ErrorPage {
            status: StatusCode::BAD_REQUEST,
            body: model::Error::new(code, "the English message"),
            input: input.map(str::to_owned),
        }
    }

    /// Latin letters of words (not of addresses, commands or the names of
    /// protocols and headers, which stay as they are written).
    fn english_words(text: &str) -> Vec<String> {
        // The input as given, in quotes, is not a word of the page.
        let mut unquoted = String::new();
        let mut quoted = false;
        for c in text.chars() {
            match c {
                '“' => quoted = true,
                '”' => quoted = false,
                c if !quoted => unquoted.push(c),
                _ => {}
            }
        }
        unquoted
            .split(|c: char| !c.is_ascii_alphabetic())
            .filter(|w| w.len() >= 3)
            .filter(|w| {
                ![
                    "IPv", "Accept", "JSON", "Markdown", "HTML", "Retry", "After", "Allow", "Host",
                    "ASN", "docs", "format", "json", "text", "html", "dig", "short", "nslookup",
                    "google", "com", "API",
                ]
                .contains(w)
            })
            .map(str::to_owned)
            .collect()
    }

    #[test]
    fn english_is_the_bodys_message() {
        let e = page(ErrorCode::InvalidIp, Some("999.1.1.1"));
        assert_eq!(message(&e, Lang::En), "the English message");
    }

    #[test]
    fn bangla_gives_the_search_reason_and_suggestion() {
        for (input, has) in [
            ("999.1.1.1", "সর্বোচ্চ ২৫৫"),
            ("1.2.3", "৪টি সংখ্যা"),
            ("1.2.3.4:99999", "৬৫,৫৩৫"),
            ("1.2.3.010", "অক্টাল"),
            ("2001:db8:::1", "হেক্স"),
            ("hello", "কোনো IPv4 বা IPv6 ঠিকানা নয়"),
            ("google.com", "dig +short google.com"),
        ] {
            let text = message(&page(ErrorCode::InvalidIp, Some(input)), Lang::Bn);
            assert!(text.contains(has), "{input}: {text}");
            assert!(text.contains("8.8.8.8") || text.contains("dig"), "{text}");
            assert!(english_words(&text).is_empty(), "{input}: {text}");
        }
        let text = message(
            &page(ErrorCode::InvalidAsn, Some("AS99999999999")),
            Lang::Bn,
        );
        assert!(text.contains("৪,২৯,৪৯,৬৭,২৯৫"), "{text}");
        let long = "1".repeat(400);
        let text = message(&page(ErrorCode::InvalidIp, Some(&long)), Lang::Bn);
        assert!(text.contains("৩০০"), "{text}");
    }

    #[test]
    fn every_code_has_a_bangla_sentence() {
        for code in ErrorCode::ALL {
            let text = message(&page(code, None), Lang::Bn);
            assert!(text.ends_with('।'), "{code:?}: {text}");
            assert!(english_words(&text).is_empty(), "{code:?}: {text}");
        }
    }
}
