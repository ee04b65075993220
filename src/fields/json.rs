//! Chosen fields of an [`IpInfo`] as one flat JSON object, in the order
//! asked (`iplookup lookup --format json --fields ip,country_code,asn`):
//! each member with the name and the JSON value it has in the document
//! (numbers, booleans and null as they are there).

use serde_json::Value;

use super::{Field, IpInfo};

/// Appends `{"name":value,...}` for `fields` of `info`.
pub fn object_of(out: &mut Vec<u8>, fields: &[Field], info: &IpInfo) -> serde_json::Result<()> {
    let doc = serde_json::to_value(info)?;
    let parts = [&doc, &doc["location"], &doc["network"]];
    out.push(b'{');
    for (i, field) in fields.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        serde_json::to_writer(&mut *out, field.name())?;
        out.push(b':');
        let value = parts.iter().find_map(|part| part.get(field.name()));
        serde_json::to_writer(&mut *out, value.unwrap_or(&Value::Null))?;
    }
    out.push(b'}');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each member is the document's own value of that field, in the order asked.
    #[test]
    fn members_are_the_documents_values_in_the_order_asked() {
        let mut info = IpInfo {
            ip: "8.8.8.8".into(),
            version: Some("IPv4".into()),
            is_public: Some(true),
            location: Default::default(),
            network: Default::default(),
            special_purpose: None,
        };
        info.network.asn = Some(15169);
        info.network.organization = Some("Google \"LLC\"".into());
        info.location.latitude = Some(37.751);
        let mut out = Vec::new();
        let fields = [
            Field::Asn,
            Field::Ip,
            Field::Latitude,
            Field::Organization,
            Field::City,
            Field::IsPublic,
        ];
        object_of(&mut out, &fields, &info).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"asn":15169,"ip":"8.8.8.8","latitude":37.751,"organization":"Google \"LLC\"","city":null,"is_public":true}"#
        );
        let mut every = Vec::new();
        object_of(&mut every, &Field::ALL, &info).unwrap();
        let doc: serde_json::Map<String, Value> = serde_json::from_slice(&every).unwrap();
        assert_eq!(doc.len(), Field::ALL.len());
    }
}
