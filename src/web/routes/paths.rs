//! Paths against route templates: whether two templates would name one
//! path ([`shadowed`], which the route table must never allow), and whether
//! a template names a path ([`template_matches`], for the route of a path
//! before the router has run). Both read a template the way axum's router
//! does (a test in [`super`] holds them to it).

/// The bytes of `template` outside its parameters: of two templates that
/// both name a path (a literal a parameter's name says it cannot take, as
/// `/docs` and `/{ip}`), the router takes the one with more.
pub(crate) fn literal_bytes(template: &str) -> usize {
    template
        .split('/')
        .map(|segment| parts(segment).0.len() + 1)
        .sum()
}

/// Whether `path` is one `template` names (`{name}` is one non-empty
/// segment after the segment's literal prefix).
pub(crate) fn template_matches(template: &str, path: &str) -> bool {
    let (mut want, mut got) = (template.split('/'), path.split('/'));
    loop {
        match (want.next(), got.next()) {
            (None, None) => return true,
            (Some(w), Some(g)) => match parts(w) {
                (literal, None) if literal == g => {}
                (prefix, Some(_)) if g.len() > prefix.len() && g.starts_with(prefix) => {}
                _ => return false,
            },
            _ => return false,
        }
    }
}

/// The first pair of `templates` that name a common path (the
/// router would answer it by one and hide it from the other), if any: a
/// literal segment where the other route has a parameter that could take
/// it (`/api/v1/ip/{ip}/country` beside `/api/v1/ip/{ip}/{field}`: `country`
/// is a field), or two parameters that could take one value. What a
/// parameter can take is given by its name ([`could_be`]); catch-alls
/// (`{*rest}`, the fallbacks) are left out.
pub(crate) fn shadowed<'a>(templates: impl Iterator<Item = &'a str>) -> Option<(&'a str, &'a str)> {
    let routes: Vec<&str> = templates.filter(|t| !t.contains("{*")).collect();
    for (i, a) in routes.iter().enumerate() {
        for b in &routes[i + 1..] {
            if overlap(a, b) {
                return Some((a, b));
            }
        }
    }
    None
}

/// Whether some path matches both templates.
fn overlap(a: &str, b: &str) -> bool {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.split('/').collect(), b.split('/').collect());
    a.len() == b.len() && a.iter().zip(&b).all(|(x, y)| segments_meet(x, y))
}

/// A template segment as its literal prefix and, if it has one, the name of
/// its parameter (`AS{asn}` is `("AS", Some("asn"))`).
fn parts(segment: &str) -> (&str, Option<&str>) {
    match segment.split_once('{') {
        Some((prefix, rest)) => (prefix, Some(rest.trim_end_matches('}'))),
        None => (segment, None),
    }
}

/// Whether one path segment matches both template segments.
fn segments_meet(x: &str, y: &str) -> bool {
    match (parts(x), parts(y)) {
        ((a, None), (b, None)) => a == b,
        ((lit, None), (prefix, Some(name))) | ((prefix, Some(name)), (lit, None)) => lit
            .strip_prefix(prefix)
            .is_some_and(|rest| could_be(name, rest)),
        ((p, Some(m)), (q, Some(n))) => {
            // The longer prefix's parameter, at its simplest, read by the other.
            let ((long, l), (short, s)) = if p.len() >= q.len() {
                ((p, m), (q, n))
            } else {
                ((q, n), (p, m))
            };
            let value = format!("{long}{}", example(l));
            long.starts_with(short)
                && could_be(s, &value[short.len()..])
                && (p != q || could_be(l, example(s)))
        }
    }
}

/// Whether the parameter `name` could take `value` (non-empty): `ip` an
/// address's characters (`network` too), `asn` an AS number with or without `AS`, `field`
/// a field's name; any other name anything.
fn could_be(name: &str, value: &str) -> bool {
    let digits = |v: &str| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
    !value.is_empty()
        && match name {
            "ip" | "network" => value
                .bytes()
                .all(|b| b.is_ascii_hexdigit() || b":.%[]".contains(&b)),
            "asn" => digits(
                value
                    .strip_prefix("AS")
                    .or_else(|| value.strip_prefix("as"))
                    .unwrap_or(value),
            ),
            "field" => value.parse::<crate::fields::Field>().is_ok(),
            _ => true,
        }
}

/// The simplest value of the parameter `name`.
fn example(name: &str) -> &'static str {
    match name {
        "field" => "asn",
        _ => "1",
    }
}
