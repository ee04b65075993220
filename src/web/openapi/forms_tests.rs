//! The try-it forms' unit tests: their targets, and a form on every `GET`
//! lookup of the document (so of the route table); and the query parameters
//! the forms fill, as the document declares them.

use super::super::params;
use super::try_it::{TryQuery, target};
use crate::web::openapi::*;

fn q(op: &str, ip: &str) -> TryQuery {
    let values = [("ip", ip), ("field", "asn"), ("asn", " AS15169 ")]
        .map(|(k, v)| (k.to_owned(), v.to_owned()));
    TryQuery {
        op: op.into(),
        values: values.into_iter().collect(),
    }
}

fn page_lookup() -> &'static crate::lookup::Lookup {
    static LOOKUP: std::sync::OnceLock<crate::lookup::Lookup> = std::sync::OnceLock::new();
    LOOKUP.get_or_init(|| crate::lookup::Lookup::new(crate::geo::GeoDb::embedded().unwrap()))
}

fn page() -> DocsPage {
    docs(page_lookup(), "")
}

#[test]
fn targets_fill_the_path() {
    let page = page();
    assert_eq!(
        target(&page, &q("api_ip", "8.8.8.8")).unwrap(),
        "/api/v1/ip/8.8.8.8?format=json"
    );
    assert_eq!(
        target(&page, &q("api_ip_field", "2001:db8::1")).unwrap(),
        "/api/v1/ip/2001:db8::1/asn"
    );
    assert_eq!(
        target(&page, &q("api_asn", "")).unwrap(),
        "/api/v1/asn/AS15169?format=json"
    );
    // A value cannot leave its segment.
    assert_eq!(
        target(&page, &q("api_ip", "../../x?y#z")).unwrap(),
        "/api/v1/ip/..%2F..%2Fx%3Fy%23z?format=json"
    );
    // Nor be a dot segment.
    assert_eq!(
        target(&page, &q("api_ip", "..")).unwrap(),
        "/api/v1/ip/%2E%2E?format=json"
    );
    assert_eq!(
        target(&page, &q("api_ip_field", " . ")).unwrap(),
        "/api/v1/ip/%2E/asn"
    );
    assert!(target(&page, &q("root", "1.1.1.1")).is_none());
}

/// Every GET lookup of the document (so of the route table) has a form
/// with a control per path parameter, the batch one with its body and its
/// `format`; nothing else has one.
#[test]
fn every_lookup_get_has_a_form() {
    let page = page();
    let mut forms = 0;
    for group in &page.groups {
        for op in &group.operations {
            let documented = routes::ALL
                .iter()
                .any(|r| r.documented && r.template == op.path);
            assert!(documented, "{}", op.path);
            let lookup = group.tag == "lookup" && op.method == "GET";
            // The batch's form sends its body (with the page's script).
            let batch = group.tag == "lookup" && op.method == "POST";
            assert_eq!(
                op.try_it.is_some(),
                lookup || batch,
                "{} {}",
                op.method,
                op.path
            );
            if let Some(form) = op.try_it.as_ref().filter(|_| batch) {
                let names: Vec<&str> = form.inputs.iter().map(|i| i.name.as_str()).collect();
                assert_eq!(names, ["format"], "{}", op.path);
                assert_eq!(form.inputs[0].options, ["json", "ndjson", "csv"]);
                assert!(
                    form.body
                        .as_deref()
                        .is_some_and(|b| b.starts_with("8.8.8.8\n"))
                );
                assert!(
                    target(&page, &q(&op.id, "")).is_none(),
                    "no GET for {}",
                    op.path
                );
            } else if let Some(form) = &op.try_it {
                let names: Vec<&str> = form.inputs.iter().map(|i| i.name.as_str()).collect();
                assert_eq!(names, params::names(&op.path), "{}", op.path);
                forms += 1;
            }
        }
    }
    assert!(forms >= 6, "{forms}");
    let field = page.operations().find(|o| o.id == "api_ip_field").unwrap();
    assert_eq!(field.try_it.as_ref().unwrap().inputs.len(), 2);
}

/// The link targets of Markdown `text`: what stands in `](...)`.
fn link_targets(text: &str) -> Vec<&str> {
    text.split("](")
        .skip(1)
        .filter_map(|rest| rest.split_once(')').map(|(target, _)| target))
        .collect()
}

/// No link of llms.txt or SKILL.md keeps a `{name}` of a template: each
/// parameter is filled from [`params`].
#[test]
fn no_link_of_llms_txt_or_skill_md_keeps_a_template() {
    let page = docs(page_lookup(), "http://h:1");
    let llms = super::super::discovery::llms(&page);
    let skill = super::super::discovery::skill("http://h:1");
    for (name, text) in [("llms.txt", &llms), ("SKILL.md", &skill)] {
        let links = link_targets(text);
        assert!(!links.is_empty(), "{name}: no link");
        for link in links {
            assert!(!link.contains('{') && !link.contains('}'), "{name}: {link}");
        }
    }
    // Every GET lookup is linked with its example values.
    for op in page.operations().filter(|o| {
        o.method == "GET" && o.path.starts_with("/api/v1/") && !o.path.ends_with(".json")
    }) {
        let example = params::example_path(&op.path).unwrap();
        assert!(
            llms.contains(&format!("(http://h:1{example})")),
            "{example}"
        );
    }
}

/// `?page=` is declared as the server reads it ([`crate::web::asn::MAX_PAGE`]):
/// an int32 from 1, so no client or fuzzer may send a page the server takes
/// for another (schemathesis sent 2147483648 to a field answer).
#[test]
fn every_page_parameter_is_an_int32_from_1_to_the_largest_page_served() {
    let doc = openapi_json_value(page_lookup(), "http://x");
    let max = u64::from(crate::web::asn::MAX_PAGE);
    let mut pages = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for op in item.as_object().unwrap().values() {
            let params = op["parameters"].as_array().into_iter().flatten();
            for p in params.filter(|p| p["name"] == "page") {
                let s = &p["schema"];
                assert_eq!(s["format"], "int32", "{path}: {s}");
                assert_eq!(
                    (&s["minimum"], s["maximum"].as_u64()),
                    (&1.into(), Some(max)),
                    "{path}: {s}"
                );
                pages += 1;
            }
        }
    }
    assert!(pages >= 6, "{pages}");
}
