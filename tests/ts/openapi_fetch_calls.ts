// The calls of the openapi-typescript + openapi-fetch client, type-checked
// with `tsc --strict` and run against the live server by
// tests/py/ts_clients_check.py (argument: the base URL). No cast: the
// client is asked for JSON (`createClient<paths, "application/json">`), the
// single field and NDJSON are read as text (`parseAs: "text"`).
import createClient from "openapi-fetch";
import type { components, paths } from "./openapi-typescript/schema.js";

type IpInfo = components["schemas"]["IpInfo"];
type ApiError = components["schemas"]["ApiError"];
type BatchEntry = components["schemas"]["BatchEntry"];

const base = process.argv[2] ?? "";
let failures = 0;
function check(ok: boolean, what: string): void {
  console.log(`${ok ? "ok" : "FAIL"}: ${what}`);
  if (!ok) failures++;
}

// Always-sent members are read without a check for absence: were they
// optional (`?:`), `tsc --strict` would refuse these assignments.
function summary(info: IpInfo): string {
  const country: string | null = info.location.country_code;
  const asn: number | null = info.network.asn;
  const special: string | null = info.special_purpose === null ? null : info.special_purpose.name;
  return `${info.ip} ${country ?? "-"} AS${asn ?? "-"} ${special ?? ""}`.trim();
}

function isError(entry: BatchEntry): entry is ApiError {
  return "error" in entry;
}

// example: api_ip
const api = createClient<paths, "application/json">({ baseUrl: base });
const { data: info, error: ipError } = await api.GET("/api/v1/ip/{ip}", {
  params: { path: { ip: "8.8.8.8" } },
});
// end example
check(info !== undefined && info.location.country_code === "US" && info.network.asn === 15169,
  `GET /api/v1/ip/8.8.8.8 -> ${info ? summary(info) : ipError?.error}`);

// example: api_me
const me = await api.GET("/api/v1/me");
// end example
check(me.data?.ip === "127.0.0.1", `GET /api/v1/me -> ${me.data?.ip}`);

// example: api_me_field
const mine = await api.GET("/api/v1/me/{field}", {
  params: { path: { field: "country_code" } },
  parseAs: "text",
});
// end example
check(mine.data === "\n", `GET /api/v1/me/country_code (a loopback caller: no country) -> ${JSON.stringify(mine.data)}`);

// example: api_ip_field
const field = await api.GET("/api/v1/ip/{ip}/{field}", {
  params: { path: { ip: "8.8.8.8", field: "country_code" } },
  parseAs: "text",
});
// end example
check(field.data === "US\n", `GET /api/v1/ip/8.8.8.8/country_code -> ${JSON.stringify(field.data)}`);

const privateUse = await api.GET("/api/v1/ip/{ip}", { params: { path: { ip: "10.1.2.3" } } });
const block = privateUse.data?.special_purpose;
check(block !== undefined && block !== null && block.name === "Private-Use" && block.rfc === "RFC 1918",
  `GET /api/v1/ip/10.1.2.3 -> special_purpose ${block?.name}`);

// example: api_ip_batch
const body = ["8.8.8.8", "2001:4860:4860::8888", "not-an-ip"];
const batch = await api.POST("/api/v1/ip", { body });
// end example
const entries: BatchEntry[] = batch.data ?? [];
const third = entries[2];
check(entries.length === 3 && !isError(entries[0]!) && third !== undefined && isError(third) && third.error === "invalid_ip",
  `POST /api/v1/ip (JSON) -> ${entries.length} entries`);

const ndjson = await api.POST("/api/v1/ip", {
  params: { query: { format: "ndjson" } },
  body,
  parseAs: "text",
});
const lines: BatchEntry[] = (ndjson.data ?? "").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
check(lines.length === 3 && ndjson.response.headers.get("content-type") === "application/x-ndjson",
  `POST /api/v1/ip?format=ndjson -> ${lines.length} lines`);

// example: api_asn
const asn = await api.GET("/api/v1/asn/{asn}", { params: { path: { asn: "AS15169" } } });
// end example
check(asn.data?.asn === 15169 && asn.data.prefixes.v4.length > 0,
  `GET /api/v1/asn/AS15169 -> ${asn.data?.organization}`);

// example: api_asn_csv
const csv = await api.GET("/api/v1/asn/{asn}/prefixes.csv", {
  params: { path: { asn: "AS15169" } },
  parseAs: "text",
});
// end example
check((csv.data ?? "").startsWith("prefix,version,country_code,addresses\n") && (csv.data ?? "").includes("\n8.8.8.0/24,IPv4,US,256\n"),
  `GET /api/v1/asn/AS15169/prefixes.csv -> ${JSON.stringify((csv.data ?? "").slice(0, 60))}`);

// example: api_prefix
const prefix = await api.GET("/api/v1/prefix/{network}/{length}", {
  params: { path: { network: "8.8.8.0", length: "24" } },
});
// end example
check(prefix.data?.prefix === "8.8.8.0/24" && prefix.data.row_count === 1 && prefix.data.rows[0]?.asn === 15169,
  `GET /api/v1/prefix/8.8.8.0/24 -> ${prefix.data?.prefix}`);

// example: api_country
const country = await api.GET("/api/v1/country/{cc}", { params: { path: { cc: "US" } } });
// end example
check(country.data?.country.country === "United States" && country.data.as_count > 0 && country.data.ases.length > 0,
  `GET /api/v1/country/US -> ${country.data?.as_count} ASes`);

// ifconfig.co's one-line routes, about ?ip= (or the caller).
// example: curl_ip
const ipLine = await api.GET("/ip", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });
// end example
check(ipLine.data === "8.8.8.8\n", `GET /ip?ip=8.8.8.8 -> ${JSON.stringify(ipLine.data)}`);
// example: curl_country
const countryLine = await api.GET("/country", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });
// end example
check(countryLine.data === "United States\n", `GET /country?ip=8.8.8.8 -> ${JSON.stringify(countryLine.data)}`);
// example: curl_country_iso
const isoLine = await api.GET("/country-iso", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });
// end example
check(isoLine.data === "US\n", `GET /country-iso?ip=8.8.8.8 -> ${JSON.stringify(isoLine.data)}`);
// example: curl_asn
const asnLine = await api.GET("/asn", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });
// end example
check(asnLine.data === "AS15169\n", `GET /asn?ip=8.8.8.8 -> ${JSON.stringify(asnLine.data)}`);
// example: curl_asn_org
const orgLine = await api.GET("/asn-org", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });
// end example
check(orgLine.data === "Google LLC\n", `GET /asn-org?ip=8.8.8.8 -> ${JSON.stringify(orgLine.data)}`);
// example: curl_city
const cityLine = await api.GET("/city", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });
// end example
check(cityLine.data === "\n", `GET /city?ip=8.8.8.8 -> ${JSON.stringify(cityLine.data)}`);
// example: curl_coordinates
const coordinates = await api.GET("/coordinates", { params: { query: { ip: "8.8.8.8" } }, parseAs: "text" });
// end example
const [lat, lon] = (coordinates.data ?? "").trim().split(",");
check(lat !== undefined && lon !== undefined && !Number.isNaN(Number(lat)) && !Number.isNaN(Number(lon)),
  `GET /coordinates?ip=8.8.8.8 -> ${JSON.stringify(coordinates.data)}`);
// example: curl_json
const whole = await api.GET("/json", { params: { query: { ip: "8.8.8.8" } } });
// end example
check(whole.data?.ip === "8.8.8.8", `GET /json?ip=8.8.8.8 -> ${whole.data?.ip}`);

const bad = await api.GET("/api/v1/ip/{ip}", { params: { path: { ip: "not-an-ip" } } });
const typed: ApiError | undefined = bad.error;
check(bad.response.status === 400 && typed?.error === "invalid_ip",
  `GET /api/v1/ip/not-an-ip -> ${bad.response.status} ${typed?.error}`);

console.log(JSON.stringify({ failures }));
process.exit(failures === 0 ? 0 : 1);
