// Generates ../../data/countries.tsv and ../../assets/world.svg for iplookup.
//
//   cd tools/countries && npm ci && node generate.mjs
//
// Every input comes from a package pinned in package-lock.json; nothing is
// fetched at run time. Output is deterministic: re-running produces
// byte-identical files. The script fails loudly (non-zero exit) when any
// check does not hold. See README.md for the choices made.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { feature } from 'topojson-client';
import { presimplify, simplify } from 'topojson-simplify';
import polylabel from 'polylabel';
import { getCountryCallingCode, isSupportedCountry } from 'libphonenumber-js';

const require = createRequire(import.meta.url);
const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const OUT_TSV = path.join(ROOT, 'data', 'countries.tsv');
const OUT_SVG = path.join(ROOT, 'assets', 'world.svg');

const readJson = (spec) => JSON.parse(fs.readFileSync(require.resolve(spec), 'utf8'));
const pkgVersion = (name) => readJson(`${name}/package.json`).version;

const errors = [];
const fail = (msg) => errors.push(msg);

// ---------------------------------------------------------------------------
// The 250 codes: every country code that occurs in the DB-IP country data
// (npm @ip-location-db/dbip-country 2.3.2026060120), i.e.
//   cut -d, -f3 dbip-country-ipv4.csv dbip-country-ipv6.csv | sort -u
// ---------------------------------------------------------------------------
const CODES = `
AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ
BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM
DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS
GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN
KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ
MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM
PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV
SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI
VN VU WF WS XK YE YT ZA ZM ZW`.trim().split(/\s+/).sort();
if (CODES.length !== 250 || new Set(CODES).size !== 250) fail(`expected 250 distinct codes, got ${CODES.length}`);

// ---------------------------------------------------------------------------
// Names (CLDR 48, cldr-localenames-full)
// ---------------------------------------------------------------------------
// Rule: the standard CLDR territory name, except that the "-alt-short" form is
// used when CLDR has one, unless that short form is an initialism or drops a
// constituent part of the country (then it is not a name a page should show).
const ALT_SHORT_REJECTED = new Set(['US', 'GB', 'BA']); // "US"/"UK" are initialisms; "Bosnia" drops Herzegovina
const territories = (locale) =>
  readJson(`cldr-localenames-full/main/${locale}/territories.json`).main[locale].localeDisplayNames.territories;
const TERR = { en: territories('en'), bn: territories('bn') };
const altShortUsed = new Set();
function cldrName(locale, code) {
  const t = TERR[locale];
  const short = t[`${code}-alt-short`];
  if (short !== undefined && !ALT_SHORT_REJECTED.has(code)) {
    altShortUsed.add(`${locale}:${code}`);
    return short;
  }
  if (t[code] === undefined) fail(`no CLDR ${locale} name for ${code}`);
  return t[code];
}

// ---------------------------------------------------------------------------
// Continent (UN M49 containment in CLDR territoryContainment)
// ---------------------------------------------------------------------------
const CONTAINMENT = readJson('cldr-core/supplemental/territoryContainment.json').supplemental.territoryContainment;
const M49_CONTINENT = {
  '002': 'Africa',
  '142': 'Asia',
  '150': 'Europe',
  '009': 'Oceania',
  '005': 'South America', // Americas (019) split by sub-region
  '029': 'North America', // Caribbean
  '013': 'North America', // Central America
  '021': 'North America', // Northern America
};
const CONTINENT_OVERRIDE = { AQ: 'Antarctica' }; // M49 has AQ only in CLDR's "QO" (Outlying Oceania)
const parentOf = {};
for (const [key, val] of Object.entries(CONTAINMENT)) {
  // Only the plain numeric M49 tree: skip "-status-deprecated"/"-status-grouping",
  // grouping nodes (EU, EZ, UN, 003, 419, 202) and CLDR's QO.
  if (!/^\d{3}$/.test(key) || val._grouping) continue;
  for (const child of val._contains) parentOf[child] = key;
}
function continentOf(code) {
  if (CONTINENT_OVERRIDE[code]) return CONTINENT_OVERRIDE[code];
  for (let r = parentOf[code]; r; r = parentOf[r]) if (M49_CONTINENT[r]) return M49_CONTINENT[r];
  fail(`no M49 continent for ${code}`);
  return '';
}

// ---------------------------------------------------------------------------
// Currency (CLDR currencyData): among the currencies with no _to date whose
// _tender is not "false", the national one (ISO code starting with the region
// code) if there is one, else the first listed (CLDR's preference order).
// ---------------------------------------------------------------------------
const CURRENCY = readJson('cldr-core/supplemental/currencyData.json').supplemental.currencyData.region;
const CURRENCY_NULL = new Set(['AQ']); // no currency of its own
function currencyOf(code) {
  const current = (CURRENCY[code] || [])
    .map((o) => Object.entries(o)[0])
    .filter(([, v]) => v._to === undefined && v._tender !== 'false');
  if (current.length === 0) {
    if (!CURRENCY_NULL.has(code)) fail(`no current currency for ${code}`);
    return '';
  }
  if (CURRENCY_NULL.has(code)) fail(`${code} is documented as null but CLDR now has ${current[0][0]}`);
  // Where a region has several tender currencies, prefer its national one: ISO 4217
  // codes start with the alpha-2 code of their country (LS: LSL over ZAR).
  const national = current.find(([iso]) => iso.startsWith(code));
  return (national || current[0])[0];
}

// ---------------------------------------------------------------------------
// Calling code (libphonenumber-js metadata) + conventions for the territories
// libphonenumber has no metadata for.
// ---------------------------------------------------------------------------
const CALLING_CONVENTION = {
  AQ: '672', // Australian Antarctic bases, Norfolk-Island range (+672 1x)
  BV: '47', // Norway (uninhabited)
  GS: '500', // shares the Falkland Islands code
  HM: '672', // Australian external territory, like AQ's Australian bases
  PN: '64', // Pitcairn uses New Zealand's code
  TF: '262', // French Southern Territories, Réunion's code
  UM: '1', // US Minor Outlying Islands, NANP
};
function callingOf(code) {
  if (isSupportedCountry(code)) {
    if (CALLING_CONVENTION[code]) fail(`${code} now has libphonenumber metadata; drop its convention`);
    return `+${getCountryCallingCode(code)}`;
  }
  if (!CALLING_CONVENTION[code]) fail(`no calling code for ${code}`);
  return `+${CALLING_CONVENTION[code]}`;
}

// ---------------------------------------------------------------------------
// Time zone: CLDR primaryZones, then OVERRIDES, then the only zone CLDR
// (cldr-bcp47 timezone.json) lists for the region, then NO_CLDR_ZONE.
// A region with several zones and no decision makes the script fail.
// ---------------------------------------------------------------------------
const BCP47_TZ = readJson('cldr-bcp47/bcp47/timezone.json').keyword.u.tz;
const canonicalZone = {}; // any IANA alias -> current IANA name
const zonesByRegion = {};
for (const [key, v] of Object.entries(BCP47_TZ)) {
  if (typeof v !== 'object' || v._deprecated || !v._alias) continue;
  const aliases = v._alias.split(' ');
  const name = v._iana || aliases[0];
  for (const a of aliases) canonicalZone[a] = name;
  if (name.startsWith('Etc/') || !name.includes('/')) continue; // UTC, GMT, Etc/GMT±n, Etc/Unknown
  // UTS #35: the first two letters of a bcp47 zone id are the region, unless _region says otherwise.
  const region = v._region || key.slice(0, 2).toUpperCase();
  (zonesByRegion[region] ||= []).push(name);
}
for (const list of Object.values(zonesByRegion)) list.sort();
const PRIMARY_ZONES = readJson('cldr-core/supplemental/primaryZones.json').supplemental.primaryZones;
const TZ_OVERRIDE = {
  AQ: 'Antarctica/McMurdo', // largest station; first AQ row of tzdata zone.tab
  AR: 'America/Argentina/Buenos_Aires',
  AU: 'Australia/Sydney',
  BR: 'America/Sao_Paulo',
  CA: 'America/Toronto',
  CD: 'Africa/Kinshasa', // capital, most people
  CY: 'Asia/Nicosia',
  FM: 'Pacific/Pohnpei', // capital Palikir is on Pohnpei
  GL: 'America/Nuuk',
  ID: 'Asia/Jakarta',
  KI: 'Pacific/Tarawa',
  KZ: 'Asia/Almaty',
  MN: 'Asia/Ulaanbaatar',
  MX: 'America/Mexico_City',
  PF: 'Pacific/Tahiti',
  PG: 'Pacific/Port_Moresby',
  PS: 'Asia/Hebron', // West Bank: more people than Gaza, seat of government
  RU: 'Europe/Moscow',
  UM: 'Pacific/Wake', // the most-staffed of the outlying islands
  US: 'America/New_York',
};
const NO_CLDR_ZONE = { XK: 'Europe/Belgrade', BV: 'Europe/Oslo', HM: 'Indian/Kerguelen' };
const tzSource = {};
function timeZoneOf(code) {
  const zones = zonesByRegion[code] || [];
  let z;
  if (PRIMARY_ZONES[code]) {
    z = canonicalZone[PRIMARY_ZONES[code]] || PRIMARY_ZONES[code];
    tzSource[code] = 'primaryZones';
    if (TZ_OVERRIDE[code]) fail(`${code} has both a CLDR primary zone and an override`);
  } else if (TZ_OVERRIDE[code]) {
    z = TZ_OVERRIDE[code];
    tzSource[code] = 'override';
  } else if (zones.length === 1) {
    z = zones[0];
    tzSource[code] = 'only zone';
  } else if (zones.length === 0 && NO_CLDR_ZONE[code]) {
    z = NO_CLDR_ZONE[code];
    tzSource[code] = 'no CLDR zone';
  } else {
    fail(`${code}: ${zones.length} zones (${zones.join(' ')}) and no primary zone or override`);
    return '';
  }
  if (zones.length > 0 && !zones.includes(z)) fail(`${code}: chosen zone ${z} is not one of CLDR's ${zones.join(' ')}`);
  if (canonicalZone[z] && canonicalZone[z] !== z) fail(`${code}: ${z} is not the current name (${canonicalZone[z]})`);
  try {
    new Intl.DateTimeFormat('en', { timeZone: z });
  } catch {
    console.warn(`warning: this Node's ICU does not know ${z} (${code})`);
  }
  return z;
}

// ---------------------------------------------------------------------------
// Geometry: Natural Earth via world-atlas (TopoJSON), decoded with topojson-client
// ---------------------------------------------------------------------------
const CODE_MAPPINGS = readJson('cldr-core/supplemental/codeMappings.json').supplemental.codeMappings;
const numericToAlpha2 = {};
for (const [alpha2, m] of Object.entries(CODE_MAPPINGS)) {
  if (m._numeric && CODES.includes(alpha2)) {
    if (numericToAlpha2[m._numeric]) fail(`numeric ${m._numeric} maps to two of our codes`);
    numericToAlpha2[m._numeric] = alpha2;
  }
}
// Natural Earth features that have no ISO numeric id.
const UNNUMBERED = {
  Kosovo: 'XK',
  'N. Cyprus': 'CY', // de jure part of Cyprus
  Somaliland: 'SO', // de jure part of Somalia
  'Indian Ocean Ter.': null, // split below into CX and CC
  'Siachen Glacier': null, // disputed India/Pakistan: assigned to neither, not drawn
  // 10m-only features, not used (only GI, TV, UM, BV are read from 10m)
  Dhekelia: null, Akrotiri: null, 'USNB Guantanamo Bay': null, 'Cyprus U.N. Buffer Zone': null,
  Baikonur: null, 'Coral Sea Is.': null, 'Spratly Is.': null, 'Clipperton I.': null,
  'Bajo Nuevo Bank': null, 'Serranilla Bank': null, 'Scarborough Reef': null,
};
// Parts of a Natural Earth country that are separate ISO codes: the first rule
// whose test accepts a polygon's outer-ring bounding box takes the polygon.
const SPLITS = {
  FR: [
    ['GF', (b) => b.minX > -55 && b.maxX < -51 && b.minY > 2 && b.maxY < 6],
    ['GP', (b) => b.minX > -62 && b.maxX < -60.9 && b.minY > 15.8 && b.maxY < 16.6],
    ['MQ', (b) => b.minX > -61.3 && b.maxX < -60.7 && b.minY > 14.3 && b.maxY < 15],
    ['RE', (b) => b.minX > 55 && b.maxX < 56 && b.minY > -21.5 && b.maxY < -20.8],
    ['YT', (b) => b.minX > 44.9 && b.maxX < 45.4 && b.minY > -13.1 && b.maxY < -12.5],
  ],
  NO: [['SJ', (b) => b.minY > 74 || (b.maxX < 0 && b.minY > 70)]], // Svalbard, Jan Mayen
  NL: [['BQ', (b) => b.maxX < -60]], // Bonaire, Sint Eustatius, Saba
  NZ: [['TK', (b) => b.minY > -10 && b.maxX < -170]], // Tokelau
  IOT: [['CX', (b) => b.minX > 100], ['CC', (b) => b.maxX < 100]], // "Indian Ocean Ter."
};
const SPLITS_10M = { NO: [['BV', (b) => b.maxY < -50]], IOT: SPLITS.IOT }; // Bouvet Island
const FROM_10M = new Set(['BV', 'GI', 'TV', 'UM']); // not in the 50m data

function bboxOf(ring) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const [x, y] of ring) {
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  return { minX, minY, maxX, maxY };
}

// Antimeridian and pole handling. world-atlas rings are spherical: a ring that
// crosses the antimeridian jumps from +180 to -180 (Russia, Fiji), and
// Antarctica is a coastline that encircles the south pole plus a tiny ring at
// -89.999. For the plane, each ring is unwrapped into continuous longitudes, a
// pole-encircling ring is closed along the pole's latitude (the tiny pole ring
// is dropped), and the result is clipped to the windows [-180 + 360k, 180 + 360k]
// and shifted back. Returns [{ k, poly }] with one entry per window touched.
function unwrapRing(ring) {
  const u = [ring[0].slice(0, 2)];
  let off = 0;
  for (let i = 1; i < ring.length; i++) {
    const d = ring[i][0] - ring[i - 1][0];
    if (d > 180) off -= 360;
    else if (d < -180) off += 360;
    u.push([ring[i][0] + off, ring[i][1]]);
  }
  return { u, off };
}
function clipRing(ring, inside, cross) {
  // Sutherland-Hodgman against one half-plane; ring is open (no repeated end point)
  const out = [];
  for (let i = 0; i < ring.length; i++) {
    const p = ring[i];
    const q = ring[(i + 1) % ring.length];
    const pin = inside(p);
    const qin = inside(q);
    if (pin) out.push(p);
    if (pin !== qin) out.push(cross(p, q));
  }
  return out;
}
const crossAt = (x) => (p, q) => [x, p[1] + ((q[1] - p[1]) * (x - p[0])) / (q[0] - p[0])];
function clipToWindow(ring, k) {
  const lo = 360 * k - 180;
  const hi = 360 * k + 180;
  let r = ring;
  if (r.length && r[r.length - 1][0] === r[0][0] && r[r.length - 1][1] === r[0][1]) r = r.slice(0, -1);
  r = clipRing(r, (p) => p[0] >= lo, crossAt(lo));
  r = clipRing(r, (p) => p[0] <= hi, crossAt(hi));
  if (r.length < 3) return null;
  r = r.map(([x, y]) => [x - 360 * k, y]);
  r.push(r[0].slice());
  return r;
}
function cutPolygon(poly, ksGiven) {
  const crosses = poly.some((ring) => ring.some((c, i) => i > 0 && Math.abs(c[0] - ring[i - 1][0]) > 180));
  if (!crosses) return (ksGiven || [0]).map((k) => ({ k, poly: k === 0 ? poly : null }));
  let rings = [];
  for (const ring of poly) {
    if (ring.every((c) => Math.abs(c[1]) > 89.9)) continue; // the pole ring
    const { u, off } = unwrapRing(ring);
    if (off !== 0) {
      const poleLat = u.reduce((s, c) => s + c[1], 0) / u.length < 0 ? -90 : 90;
      u.push([u[u.length - 1][0], poleLat], [u[0][0], poleLat]);
      rings.unshift(u); // the ring around the pole is this polygon's outer ring
    } else rings.push(u);
  }
  const xs = rings.flat().map((c) => c[0]);
  const minX = Math.min(...xs);
  const maxX = Math.max(...xs);
  const ks = ksGiven || [-2, -1, 0, 1, 2].filter((k) => maxX > 360 * k - 180 && minX < 360 * k + 180);
  return ks.map((k) => {
    const outer = rings.length ? clipToWindow(rings[0], k) : null;
    if (!outer) return { k, poly: null };
    const holes = rings.slice(1).map((h) => clipToWindow(h, k)).filter(Boolean);
    return { k, poly: [outer, ...holes] };
  });
}

// Returns { polys: { code: [polygon, ...] }, simple: { code: [polygon, ...] } } where
// polygon = [outerRing, ...holes] in lon/lat. With minWeight, `simple` holds the
// same polygons (same order) from the topology simplified by topojson-simplify;
// polygons are always assigned to codes from the full-resolution geometry.
function polygonsByCode(resolution, splits, minWeight) {
  const topo = readJson(`world-atlas/countries-${resolution}.json`);
  const fc = feature(topo, topo.objects.countries);
  let fcSimple = null;
  if (minWeight !== undefined) {
    const st = simplify(presimplify(readJson(`world-atlas/countries-${resolution}.json`)), minWeight);
    fcSimple = feature(st, st.objects.countries);
  }
  const out = {};
  const simple = {};
  const unassigned = [];
  const polysOf = (g) => (!g ? [] : g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : []);
  fc.features.forEach((f, fi) => {
    let code;
    if (f.id !== undefined) {
      code = numericToAlpha2[f.id];
      if (!code) fail(`${resolution}: numeric id ${f.id} (${f.properties.name}) is none of our codes`);
    } else if (f.properties.name in UNNUMBERED) {
      code = UNNUMBERED[f.properties.name];
      if (f.properties.name === 'Indian Ocean Ter.') code = 'IOT';
    } else {
      fail(`${resolution}: unexpected feature without id: ${f.properties.name}`);
    }
    if (!code) {
      unassigned.push(f.properties.name);
      return;
    }
    const rawPolys = polysOf(f.geometry);
    const rawSimple = fcSimple ? polysOf(fcSimple.features[fi].geometry) : [];
    if (fcSimple && rawSimple.length !== rawPolys.length) fail(`${resolution}: simplification changed ${f.properties.name}`);
    const polys = [];
    const simplePolys = [];
    rawPolys.forEach((raw, i) => {
      const pieces = cutPolygon(raw);
      const simplePieces = fcSimple ? cutPolygon(rawSimple[i], pieces.map((p) => p.k)) : [];
      pieces.forEach((piece, j) => {
        if (!piece.poly) return;
        polys.push(piece.poly);
        if (fcSimple) simplePolys.push(simplePieces[j].poly || [[]]);
      });
    });
    polys.forEach((poly, pi) => {
      let target = code;
      for (const [sub, test] of splits[code] || []) {
        if (test(bboxOf(poly[0]))) {
          target = sub;
          break;
        }
      }
      if (target === 'IOT') fail(`${resolution}: an Indian Ocean Ter. polygon matched neither CX nor CC`);
      (out[target] ||= []).push(poly);
      if (fcSimple) (simple[target] ||= []).push(simplePolys[pi]);
    });
  });
  for (const [code, rules] of Object.entries(splits)) {
    for (const [sub] of rules) if (!out[sub] && code in out) fail(`${resolution}: split ${code} -> ${sub} took no polygon`);
  }
  return { polys: out, simple, unassigned };
}

const ringArea = (ring) => {
  // planar shoelace in lon/lat degrees, signed
  let a = 0;
  for (let i = 0, n = ring.length, j = n - 1; i < n; j = i++) a += ring[j][0] * ring[i][1] - ring[i][0] * ring[j][1];
  return a / 2;
};
function ringCentroid(ring) {
  let a = 0, cx = 0, cy = 0;
  for (let i = 0, n = ring.length, j = n - 1; i < n; j = i++) {
    const [x0, y0] = ring[j];
    const [x1, y1] = ring[i];
    const k = x0 * y1 - x1 * y0;
    a += k;
    cx += (x0 + x1) * k;
    cy += (y0 + y1) * k;
  }
  return { a: a / 2, cx, cy };
}
function polygonArea(poly) {
  return Math.abs(ringArea(poly[0])) - poly.slice(1).reduce((s, h) => s + Math.abs(ringArea(h)), 0);
}
function polygonCentroid(poly) {
  // area centroid of outer ring minus holes
  let A = 0, X = 0, Y = 0;
  poly.forEach((ring, i) => {
    const { a, cx, cy } = ringCentroid(ring);
    const sign = (i === 0 ? 1 : -1) * Math.sign(a); // outer counts +, holes -
    A += sign * a;
    X += sign * cx;
    Y += sign * cy;
  });
  return [X / (6 * A), Y / (6 * A)];
}
function pointInRing([x, y], ring) {
  let inside = false;
  for (let i = 0, n = ring.length, j = n - 1; i < n; j = i++) {
    const [xi, yi] = ring[i];
    const [xj, yj] = ring[j];
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
const pointInPolygon = (pt, poly) => pointInRing(pt, poly[0]) && !poly.slice(1).some((h) => pointInRing(pt, h));

const round4 = (v) => {
  const r = Math.round(v * 1e4) / 1e4;
  return Object.is(r, -0) ? 0 : r;
};
const fmt4 = (v) => v.toFixed(4);

// The map uses the same 50m data, simplified (Visvalingam, topology-preserving
// so shared borders stay shared) to what a 1000x500 picture can show.
const MAP_MIN_WEIGHT = 0.03; // square degrees of planar triangle area (Visvalingam); keeps the file near 145 KB
const geo50 = polygonsByCode('50m', SPLITS, MAP_MIN_WEIGHT);
const geo10 = polygonsByCode('10m', SPLITS_10M);
const points = {};
const pointMethod = {};
const pipFailures = [];
for (const code of CODES) {
  const polys = FROM_10M.has(code) ? geo10.polys[code] : geo50.polys[code];
  if (!polys) {
    fail(`no Natural Earth polygon for ${code}`);
    continue;
  }
  const largest = polys.reduce((best, p) => (polygonArea(p) > polygonArea(best) ? p : best));
  let pt = polygonCentroid(largest).map(round4);
  let method = 'centroid';
  if (!pointInPolygon(pt, largest)) {
    const precision = Math.max(1e-4, Math.sqrt(polygonArea(largest)) / 1000);
    pt = polylabel(largest, precision).slice(0, 2).map(round4);
    method = 'polylabel';
  }
  if (!pointInPolygon(pt, largest)) pipFailures.push(code);
  points[code] = { lon: pt[0], lat: pt[1] };
  pointMethod[code] = `${method} (${FROM_10M.has(code) ? '10m' : '50m'})`;
}
if (pipFailures.length) fail(`point not inside its polygon: ${pipFailures.join(' ')}`);

// ---------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------
const HEADER = ['code', 'name', 'name_bn', 'continent', 'latitude', 'longitude', 'time_zone', 'currency', 'calling_code'];
const NULLABLE = { currency: CURRENCY_NULL };
const rows = CODES.map((code) => [
  code,
  cldrName('en', code),
  cldrName('bn', code),
  continentOf(code),
  points[code] ? fmt4(points[code].lat) : '',
  points[code] ? fmt4(points[code].lon) : '',
  timeZoneOf(code),
  currencyOf(code),
  callingOf(code),
]);
for (const row of rows) {
  row.forEach((cell, i) => {
    if (/[\t\r\n]/.test(cell)) fail(`${row[0]} ${HEADER[i]}: tab or newline in value`);
    if (cell !== cell.trim()) fail(`${row[0]} ${HEADER[i]}: surrounding whitespace`);
    if (cell === '' && !(NULLABLE[HEADER[i]] && NULLABLE[HEADER[i]].has(row[0]))) fail(`${row[0]} ${HEADER[i]}: empty`);
  });
}
const tsv = [HEADER, ...rows].map((r) => r.join('\t')).join('\n') + '\n';

// ---------------------------------------------------------------------------
// The map: equirectangular, viewBox 0 0 1000 500, one <path id="XX"> per code
// ---------------------------------------------------------------------------
const W = 1000, H = 500;
const project = ([lon, lat]) => [(lon + 180) * W / 360, (90 - lat) * H / 180];
const r1 = (v) => Math.round(v * 10); // work in integer tenths to keep rounding exact
const num = (t) => {
  // t is an integer number of tenths
  const s = (Math.abs(t) / 10).toString();
  return (t < 0 ? '-' : '') + s.replace(/^0\./, '.');
};
// Douglas-Peucker on a closed ring of integer points (tenths of a unit); keeps
// the first point, the point farthest from it and the point farthest from that
// chord, so a small island stays at least a triangle.
function segDist2(p, a, b) {
  const dx = b[0] - a[0], dy = b[1] - a[1];
  const l2 = dx * dx + dy * dy;
  let t = l2 ? ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / l2 : 0;
  t = Math.max(0, Math.min(1, t));
  const ex = a[0] + t * dx - p[0], ey = a[1] + t * dy - p[1];
  return ex * ex + ey * ey;
}
function dpRing(pts, tol) {
  const n = pts.length;
  if (n <= 4) return pts;
  const keep = new Uint8Array(n);
  let far = 0, best = -1;
  for (let i = 1; i < n; i++) {
    const d = (pts[i][0] - pts[0][0]) ** 2 + (pts[i][1] - pts[0][1]) ** 2;
    if (d > best) (best = d), (far = i);
  }
  const idx = (i) => (i % n);
  let third = -1;
  best = -1;
  for (let i = 1; i < n; i++) {
    if (i === far) continue;
    const d = segDist2(pts[i], pts[0], pts[far]);
    if (d > best) (best = d), (third = i);
  }
  keep[0] = keep[far] = keep[third] = 1;
  const stack = [];
  const anchors = [0, far, third].sort((a, b) => a - b);
  for (let k = 0; k < 3; k++) stack.push([anchors[k], k === 2 ? n : anchors[k + 1]]);
  while (stack.length) {
    const [a, b] = stack.pop();
    let m = -1, dm = -1;
    for (let i = a + 1; i < b; i++) {
      const d = segDist2(pts[i], pts[a], pts[idx(b)]);
      if (d > dm) (dm = d), (m = i);
    }
    if (m >= 0 && dm > tol * tol) {
      keep[m] = 1;
      stack.push([a, m], [m, b]);
    }
  }
  return pts.filter((_, i) => keep[i]);
}
const FALLBACK_TOLERANCE = 3; // tenths of a map unit
function ringPath(ring, wantPositive, dpTolerance) {
  let pts = [];
  for (const p of ring) {
    const [x, y] = project(p).map(r1);
    const last = pts[pts.length - 1];
    if (!last || last[0] !== x || last[1] !== y) pts.push([x, y]);
  }
  while (pts.length > 1 && pts[0][0] === pts[pts.length - 1][0] && pts[0][1] === pts[pts.length - 1][1]) pts.pop();
  if (pts.length < 3) return null;
  if (dpTolerance) pts = dpRing(pts, dpTolerance);
  const a = ringArea(pts);
  if (a === 0) return null;
  if (a > 0 !== wantPositive) pts.reverse(); // outer rings one way, holes the other (nonzero fill)
  let d = `M${num(pts[0][0])} ${num(pts[0][1])}l`;
  const parts = [];
  for (let i = 1; i < pts.length; i++) {
    const dx = pts[i][0] - pts[i - 1][0];
    const dy = pts[i][1] - pts[i - 1][1];
    parts.push(`${num(dx)}${dy < 0 ? '' : ' '}${num(dy)}`);
  }
  // separators: a '-' sign separates by itself
  d += parts.map((p, i) => (i === 0 || p.startsWith('-') ? p : ' ' + p)).join('');
  return d + 'z';
}
const svgPaths = [];
const noPath = [];
for (const code of CODES) {
  const polys = geo50.simple[code] || [];
  const ds = [];
  for (const [pi, poly] of polys.entries()) {
    // An island that simplification collapsed is drawn from the full ring instead.
    const outer = ringPath(poly[0], true) || ringPath(geo50.polys[code][pi][0], true, FALLBACK_TOLERANCE);
    if (!outer) continue; // degenerate even at full resolution: holes go too
    ds.push(outer);
    for (const hole of poly.slice(1)) {
      const h = ringPath(hole, false);
      if (h) ds.push(h);
    }
  }
  if (ds.length === 0) {
    noPath.push(code);
    continue;
  }
  svgPaths.push(`<path id="${code}" d="${ds.join('')}"/>`);
}
const svg =
  `<svg xmlns="http://www.w3.org/2000/svg" id="world" viewBox="0 0 ${W} ${H}">\n` +
  `<!-- Natural Earth 1:50m admin-0 countries (public domain) via world-atlas ${pkgVersion('world-atlas')}; ` +
  `equirectangular: x = (lon + 180) * ${W} / 360, y = (90 - lat) * ${H} / 180. Generated by tools/countries/generate.mjs -->\n` +
  svgPaths.join('\n') +
  '\n</svg>\n';

// ---------------------------------------------------------------------------
// Fail or write, then summarise
// ---------------------------------------------------------------------------
if (errors.length) {
  for (const e of errors) console.error(`error: ${e}`);
  console.error(`${errors.length} error(s); nothing written`);
  process.exit(1);
}
fs.mkdirSync(path.dirname(OUT_TSV), { recursive: true });
fs.mkdirSync(path.dirname(OUT_SVG), { recursive: true });
fs.writeFileSync(OUT_TSV, tsv);
fs.writeFileSync(OUT_SVG, svg);

const count = (obj, v) => Object.values(obj).filter((x) => x === v).length;
console.log('sources:', ['cldr-core', 'cldr-localenames-full', 'cldr-bcp47', 'world-atlas', 'topojson-client', 'polylabel', 'libphonenumber-js']
  .map((p) => `${p}@${pkgVersion(p)}`).join(' '));
console.log(`wrote ${path.relative(ROOT, OUT_TSV)}: ${rows.length} rows`);
console.log(`wrote ${path.relative(ROOT, OUT_SVG)}: ${svg.length} bytes, ${svgPaths.length} paths`);
console.log(`names: alt-short used for ${[...altShortUsed].join(' ')}; rejected for ${[...ALT_SHORT_REJECTED].join(' ')}`);
const methods = Object.values(pointMethod);
console.log(`points: ${rows.length - pipFailures.length}/${rows.length} inside their polygon (` +
  [...new Set(methods)].sort().map((m) => `${m}: ${methods.filter((x) => x === m).length}`).join(', ') + ')');
console.log(`  polylabel used for: ${CODES.filter((c) => pointMethod[c].startsWith('polylabel')).join(' ')}`);
console.log(`  from 10m data: ${[...FROM_10M].join(' ')}`);
console.log(`time zones: primaryZones ${count(tzSource, 'primaryZones')}, override ${count(tzSource, 'override')}, ` +
  `only zone ${count(tzSource, 'only zone')}, no CLDR zone ${count(tzSource, 'no CLDR zone')}`);
console.log(`calling-code conventions: ${Object.keys(CALLING_CONVENTION).join(' ')}`);
console.log(`natural earth features not drawn or assigned: ${[...new Set(geo50.unassigned)].join(', ')}`);
console.log(`codes without a map path (${noPath.length}): ${noPath.join(' ')}`);
