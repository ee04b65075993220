//! The AS page's prefixes over a real socket ([`crate::web::testing`]):
//! IPv4 and IPv6 apart, each under its heading, and numbered pages.

use crate::web::testing::get;

/// The numbers of the pager's page links in `html`, and the current one.
fn numbered(html: &str) -> (Vec<u32>, Option<u32>) {
    let nav = html
        .split("<nav class=\"pager\"")
        .nth(1)
        .and_then(|s| s.split("</nav>").next())
        .unwrap_or("");
    let (mut all, mut current) = (Vec::new(), None);
    for a in nav.split("<a ").skip(1) {
        let text = a.split('>').nth(1).and_then(|t| t.split('<').next());
        if let Some(k) = text.and_then(|t| t.parse::<u32>().ok()) {
            all.push(k);
            if a.contains("class=\"current\"") {
                current = Some(k);
            }
        }
    }
    (all, current)
}

#[tokio::test]
async fn an_as_page_lists_its_families_apart_on_numbered_pages() {
    let json = get("/api/v1/asn/AS174", &[]).await;
    let v: serde_json::Value = serde_json::from_str(&json.body).expect("JSON");
    let pages = v["page"]["pages"].as_u64().expect("pages") as u32;
    let per = v["page"]["per_page"].as_u64().expect("per page");
    let v4 = v["prefix_count"]["v4"].as_u64().expect("v4 prefixes");
    assert!(pages > 9, "AS174 has {pages} pages");
    // The page where the IPv4 prefixes end and the IPv6 ones begin.
    let both = (v4 / per + 1) as u32;
    assert!(
        v4 % per != 0 && both < pages,
        "{v4} IPv4 prefixes, {per} a page"
    );

    let first = get("/AS174", &[("accept", "text/html")]).await;
    assert_eq!(first.status, 200);
    assert!(first.body.contains("<h2>IPv4 prefixes</h2>"));
    assert!(!first.body.contains("<h2>IPv6 prefixes</h2>"));
    assert_eq!(
        numbered(&first.body),
        (vec![1, 2, 3, pages - 1, pages], Some(1))
    );

    let mixed = get(&format!("/AS174?page={both}"), &[("accept", "text/html")]).await;
    let (v4_at, v6_at) = (
        mixed
            .body
            .find("<h2>IPv4 prefixes</h2>")
            .expect("the IPv4 heading"),
        mixed
            .body
            .find("<h2>IPv6 prefixes</h2>")
            .expect("the IPv6 heading"),
    );
    assert!(v4_at < v6_at);
    let (numbers, current) = numbered(&mixed.body);
    assert_eq!(current, Some(both));
    assert!(
        numbers.contains(&1) && numbers.contains(&pages),
        "{numbers:?}"
    );
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");

    let bn = get(
        &format!("/AS174?page={both}&lang=bn"),
        &[("accept", "text/html")],
    )
    .await;
    assert!(bn.body.contains("<h2>IPv4 প্রিফিক্স</h2>") && bn.body.contains("<h2>IPv6 প্রিফিক্স</h2>"));

    // One page of prefixes (AS15169's fit one): no numbers.
    let one = get("/AS15169", &[("accept", "text/html")]).await;
    assert_eq!(numbered(&one.body).0, Vec::<u32>::new());
}
