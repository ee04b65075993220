// The calls of the @hey-api/openapi-ts client (its fetch client), type-checked
// with `tsc --strict` and run against the live server by
// tests/py/ts_clients_check.py (argument: the base URL). No cast.
import { client } from "./hey-api/client.gen.js";
import { apiAsn, apiIp, apiIpBatch, apiIpField, apiMe } from "./hey-api/sdk.gen.js";
import type { ApiError, BatchEntry, IpInfo } from "./hey-api/types.gen.js";

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
  return `${info.ip} ${country ?? "-"} AS${asn ?? "-"}`;
}

function isError(entry: BatchEntry): entry is ApiError {
  return "error" in entry;
}

client.setConfig({ baseUrl: base });
const { data: info, error: ipError } = await apiIp({ path: { ip: "8.8.8.8" } });
check(info !== undefined && info.location.country_code === "US" && info.network.asn === 15169,
  `GET /api/v1/ip/8.8.8.8 -> ${info ? summary(info) : ipError?.error}`);

const me = await apiMe();
check(me.data?.ip === "127.0.0.1", `GET /api/v1/me -> ${me.data?.ip}`);

const field = await apiIpField({ path: { ip: "8.8.8.8", field: "country_code" } });
check(field.data === "US\n", `GET /api/v1/ip/8.8.8.8/country_code -> ${JSON.stringify(field.data)}`);

const privateUse = await apiIp({ path: { ip: "10.1.2.3" } });
const block = privateUse.data?.special_purpose;
check(block !== undefined && block !== null && block.name === "Private-Use",
  `GET /api/v1/ip/10.1.2.3 -> special_purpose ${block?.name}`);

const body = ["8.8.8.8", "2001:4860:4860::8888", "not-an-ip"];
const batch = await apiIpBatch({ body });
const entries: BatchEntry[] = batch.data ?? [];
const third = entries[2];
check(entries.length === 3 && !isError(entries[0]!) && third !== undefined && isError(third) && third.error === "invalid_ip",
  `POST /api/v1/ip (JSON) -> ${entries.length} entries`);

// NDJSON: the typed answer is the JSON one, so the stream is read as text.
const ndjson = await apiIpBatch({ body, query: { format: "ndjson" }, parseAs: "stream" });
const text = await ndjson.response.text();
const lines: BatchEntry[] = text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
check(lines.length === 3 && ndjson.response.headers.get("content-type") === "application/x-ndjson",
  `POST /api/v1/ip?format=ndjson -> ${lines.length} lines`);

const asn = await apiAsn({ path: { asn: "AS15169" } });
check(asn.data?.asn === 15169 && asn.data.prefixes.v4.length > 0,
  `GET /api/v1/asn/AS15169 -> ${asn.data?.organization}`);

const bad = await apiIp({ path: { ip: "not-an-ip" } });
const typed: ApiError | undefined = bad.error;
check(bad.response.status === 400 && typed?.error === "invalid_ip",
  `GET /api/v1/ip/not-an-ip -> ${bad.response.status} ${typed?.error}`);

console.log(JSON.stringify({ failures }));
process.exit(failures === 0 ? 0 : 1);
