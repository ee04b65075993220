//! Generates the client from `openapi-3.0.json` (the service's
//! `/api/v1/openapi-3.0.json`, committed) with progenitor, into
//! `$OUT_DIR/client.rs`, which `src/lib.rs` includes: the operations of the
//! tag `lookup` (the JSON API). The pages, the description documents and
//! MCP are left out: `POST /mcp` answers 200 with a JSON-RPC message or 202
//! with none, two success types progenitor 0.15 cannot put in one method
//! (it panics on it), and a client of those has nothing to type.

use std::{env, fs, path::Path, process::ExitCode};

fn main() -> ExitCode {
    match generate() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("iplookup-client: cannot generate the client: {e}");
            ExitCode::FAILURE
        }
    }
}

fn generate() -> Result<(), Box<dyn std::error::Error>> {
    let src = "openapi-3.0.json";
    println!("cargo:rerun-if-changed={src}");
    let mut spec: serde_json::Value = serde_json::from_str(&fs::read_to_string(src)?)?;
    if let Some(paths) = spec.get_mut("paths").and_then(|p| p.as_object_mut()) {
        for item in paths.values_mut() {
            if let Some(ops) = item.as_object_mut() {
                ops.retain(|_, op| op["tags"][0] == "lookup");
            }
        }
        paths.retain(|_, item| item.as_object().is_some_and(|ops| !ops.is_empty()));
    }
    let spec = serde_json::from_value(spec)?;
    let mut generator = progenitor::Generator::default();
    let tokens = generator.generate_tokens(&spec)?;
    let file: syn::File = syn::parse2(tokens)?;
    let out = Path::new(&env::var("OUT_DIR")?).join("client.rs");
    fs::write(out, prettyplease::unparse(&file))?;
    Ok(())
}
