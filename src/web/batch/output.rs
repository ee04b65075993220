//! The answer formats of `POST /api/v1/ip`: JSON (the default), NDJSON and
//! CSV, by `?format=` or `Accept`.

/// An answer format of the batch route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    Json,
    Ndjson,
    Csv,
}

impl Output {
    /// Every format, the default first.
    pub(crate) const ALL: [Output; 3] = [Output::Json, Output::Ndjson, Output::Csv];

    /// The media type as the `Content-Type` of an answer.
    pub(crate) fn content_type(self) -> &'static str {
        match self {
            Output::Json => "application/json",
            Output::Ndjson => "application/x-ndjson",
            Output::Csv => "text/csv; charset=utf-8",
        }
    }

    /// The format a media range of `Accept` names, if any.
    fn of_range(range: &str) -> Option<Output> {
        match range {
            "application/json" | "application/*" | "*/*" => Some(Output::Json),
            "application/x-ndjson" | "application/ndjson" => Some(Output::Ndjson),
            "text/csv" | "text/*" => Some(Output::Csv),
            _ => None,
        }
    }

    /// The `?format=` value naming this format.
    pub(crate) fn query_name(self) -> &'static str {
        match self {
            Output::Json => "json",
            Output::Ndjson => "ndjson",
            Output::Csv => "csv",
        }
    }

    /// The format `?format=` names: `Ok(None)` for a format of the
    /// service's pages this route does not offer (406), `Err` for a name
    /// that is no format (400).
    pub(super) fn from_query(value: &str) -> Result<Option<Output>, ()> {
        let value = value.to_ascii_lowercase();
        if let Some(output) = Output::ALL.into_iter().find(|o| o.query_name() == value) {
            return Ok(Some(output));
        }
        match crate::web::serve::negotiate::Format::from_query(&value) {
            Some(_) => Ok(None),
            None => Err(()),
        }
    }

    /// The format `Accept` prefers (the highest `q`, the first of equals);
    /// JSON without `Accept`; `None` when it names none of the three.
    pub(crate) fn negotiate(accept: Option<&str>) -> Option<Output> {
        let Some(accept) = accept.filter(|a| !a.trim().is_empty()) else {
            return Some(Output::Json);
        };
        let mut best: Option<(f32, Output)> = None;
        for item in accept.split(',') {
            let mut parts = item.split(';');
            let range = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|v| v.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            let Some(output) = Output::of_range(&range) else {
                continue;
            };
            if q > 0.0 && best.is_none_or(|(b, _)| q > b) {
                best = Some((q, output));
            }
        }
        best.map(|(_, output)| output)
    }
}
