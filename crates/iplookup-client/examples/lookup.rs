//! Looks addresses up through the generated client and prints a line per
//! answer: `cargo run -p iplookup-client --example lookup -- BASE_URL ADDRESS...`
//! (e.g. `http://127.0.0.1:8080 8.8.8.8 2001:4860:4860::8888 10.1.2.3`).

use iplookup_client::{Client, types};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let base = args.next().ok_or("usage: lookup BASE_URL ADDRESS...")?;
    let client = Client::new(&base);
    for address in args {
        let ip: types::IpParam = address.parse()?;
        match client.api_ip(&ip, None).await {
            Ok(answer) => {
                let info = answer.into_inner();
                let special = info.special_purpose.map(|s| s.name);
                println!(
                    "{} {} AS{} {} {}",
                    info.ip,
                    info.location.country_code.as_deref().unwrap_or("-"),
                    info.network.asn.map_or("-".to_owned(), |a| a.to_string()),
                    info.network.organization.as_deref().unwrap_or("-"),
                    special.as_deref().unwrap_or(""),
                );
            }
            Err(iplookup_client::Error::ErrorResponse(e)) => {
                println!("{address}: {} {}", e.status(), e.error);
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}
