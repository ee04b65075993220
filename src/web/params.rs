//! The path parameters of the route table, each declared once: its name
//! (as the templates write it, `{name}`), the label and control of its
//! try-it form, and its example value. The /docs try-it forms
//! ([`super::openapi::try_it`]), the OpenAPI parameters' examples, and the
//! example links of llms.txt ([`super::discovery::llms`]) are built from
//! it, so a new route's parameter is added here once (a test holds every
//! parameter of [`super::routes::ALL`] to this table).

use crate::fields::Field;

/// One path parameter.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PathParam {
    /// The name in the templates (`ip` for `{ip}`).
    pub name: &'static str,
    /// The try-it form's label.
    pub label: &'static str,
    /// The example value (the one the forms start with and the links use).
    pub example: fn() -> String,
    /// The values a form offers in a list; none for a text box.
    pub options: fn() -> Vec<String>,
}

fn free_text() -> Vec<String> {
    Vec::new()
}

fn asset_names() -> Vec<String> {
    super::render::assets::names()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// Every path parameter of the route table.
pub(crate) const ALL: &[PathParam] = &[
    PathParam {
        name: "ip",
        label: "Address",
        example: || super::openapi::examples::V4.to_owned(),
        options: free_text,
    },
    PathParam {
        name: "field",
        label: "Field",
        example: || Field::CountryCode.name().to_owned(),
        options: || Field::ALL.iter().map(|f| f.name().to_owned()).collect(),
    },
    PathParam {
        name: "asn",
        label: "AS number",
        example: || super::openapi::examples::AS.to_owned(),
        options: free_text,
    },
    PathParam {
        name: "network",
        label: "Network",
        // A prefix's first address: no host bits under /24.
        example: || "8.8.8.0".to_owned(),
        options: free_text,
    },
    PathParam {
        name: "length",
        label: "Prefix length",
        example: || "24".to_owned(),
        options: free_text,
    },
    PathParam {
        name: "length_or_field",
        label: "Prefix length or field",
        // The prefix page of `/{network}/{length_or_field}` (`/8.8.8.0/24`).
        example: || "24".to_owned(),
        options: free_text,
    },
    PathParam {
        name: "prefix",
        label: "Prefix",
        example: || "8.8.8.0/24".to_owned(),
        options: free_text,
    },
    PathParam {
        name: "cc",
        label: "Country code",
        example: || "BD".to_owned(),
        options: free_text,
    },
    PathParam {
        name: "rest",
        label: "Path",
        // A path under /api/ that no route names (the API's 404).
        example: || "v2".to_owned(),
        options: free_text,
    },
    PathParam {
        name: "file",
        label: "File",
        example: || asset_names().into_iter().next().unwrap_or_default(),
        options: asset_names,
    },
];

/// The parameter named `name`, if the table has it.
pub(crate) fn named(name: &str) -> Option<&'static PathParam> {
    ALL.iter().find(|p| p.name == name)
}

/// The parameter names of `template`, in order (`{*rest}` is none).
pub(crate) fn names(template: &str) -> Vec<&str> {
    template
        .split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}').map(|(name, _)| name))
        .filter(|name| !name.starts_with('*'))
        .collect()
}

/// `template` with each parameter replaced by its example; `None` when a
/// parameter is not in the table. Literal text just before a parameter that
/// its example starts with is not repeated (`/AS{asn}` is `/AS15169`).
pub(crate) fn example_path(template: &str) -> Option<String> {
    let mut out = String::with_capacity(template.len() + 16);
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        let (before, tail) = rest.split_at(at);
        let (name, after) = tail[1..].split_once('}')?;
        let example = (named(name)?.example)();
        let prefix: String = example
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect();
        let value = match before.strip_suffix(prefix.as_str()) {
            Some(_) if !prefix.is_empty() => &example[prefix.len()..],
            _ => example.as_str(),
        };
        out.push_str(before);
        out.push_str(value);
        rest = after;
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::web::routes;

    #[test]
    fn every_parameter_of_the_route_table_is_declared_once() {
        let mut seen = 0;
        for route in routes::ALL.iter().filter(|r| !r.template.contains("{*")) {
            for name in names(route.template) {
                assert!(
                    named(name).is_some(),
                    "{}: {{{name}}} not in params::ALL",
                    route.template
                );
                seen += 1;
            }
            assert!(
                example_path(route.template).is_some_and(|p| !p.contains('{')),
                "{}",
                route.template
            );
        }
        assert!(seen >= 6, "{seen}");
        for (i, p) in ALL.iter().enumerate() {
            assert!(
                ALL[..i].iter().all(|q| q.name != p.name),
                "{} twice",
                p.name
            );
            assert!(!(p.example)().is_empty(), "{}: no example", p.name);
        }
    }

    #[test]
    fn example_paths_fill_each_parameter() {
        assert_eq!(
            example_path("/api/v1/ip/{ip}/{field}").unwrap(),
            "/api/v1/ip/8.8.8.8/country_code"
        );
        assert_eq!(
            example_path("/api/v1/asn/{asn}").unwrap(),
            "/api/v1/asn/AS15169"
        );
        assert_eq!(example_path("/AS{asn}").unwrap(), "/AS15169");
        assert_eq!(example_path("/docs").unwrap(), "/docs");
        assert!(example_path("/x/{nope}").is_none());
        assert_eq!(names("/api/{*rest}"), Vec::<&str>::new());
    }
}
