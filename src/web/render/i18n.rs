//! The languages of the pages (English and Bangla) in one place: which one a
//! request asks for (`?lang=`, then `Accept-Language` with its q-values), the
//! words and sentences of the text, Markdown and HTML forms ([`Msg`]), and
//! numbers, dates and clock times as CLDR 48 writes them for the language
//! (`bn`: Bengali digits, the Indian grouping `#,##,##0`, `d MMMM, y`,
//! `h:mm a`). JSON never changes with the language.
//!
//! Adding a language: a variant of [`Lang`], its code in [`Lang::code`], a
//! column in the [`catalogue!`] below and its digits and month names.

/// A language the pages are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub(crate) enum Lang {
    #[default]
    En,
    Bn,
}

impl Lang {
    /// Every language, the default first.
    pub(crate) const ALL: [Lang; 2] = [Lang::En, Lang::Bn];

    /// The BCP 47 tag (`Content-Language`, `lang=` attributes, `?lang=`).
    pub(crate) fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Bn => "bn",
        }
    }

    /// The language's own name, for the link that switches to it.
    pub(crate) fn own_name(self) -> &'static str {
        match self {
            Lang::En => "English",
            Lang::Bn => "বাংলা",
        }
    }

    /// The language a tag names: its primary subtag (`bn-BD` is `bn`), any case.
    pub(crate) fn from_tag(tag: &str) -> Option<Lang> {
        let primary = tag.trim().split(['-', '_']).next()?;
        Lang::ALL
            .into_iter()
            .find(|l| primary.eq_ignore_ascii_case(l.code()))
    }

    /// The language of a request: `?lang=` when it names one, else the
    /// `Accept-Language` entry with the highest q-value that names one
    /// (the first of equals; `q=0` refuses), else English.
    pub(crate) fn negotiate(query: Option<&str>, accept_language: Option<&str>) -> Lang {
        if let Some(lang) = query.and_then(Lang::from_tag) {
            return lang;
        }
        let Some(header) = accept_language else {
            return Lang::En;
        };
        let mut best: Option<(u16, Lang)> = None;
        for entry in header.split(',').take(32) {
            let mut parts = entry.split(';');
            let tag = parts.next().unwrap_or("").trim();
            let q = parts
                .find_map(|p| {
                    let (k, v) = p.split_once('=')?;
                    (k.trim().eq_ignore_ascii_case("q")).then(|| quality(v.trim()))
                })
                .unwrap_or(Some(1000));
            let (Some(q), Some(lang)) = (q, Lang::from_tag(tag)) else {
                continue;
            };
            if q > 0 && best.is_none_or(|(b, _)| q > b) {
                best = Some((q, lang));
            }
        }
        best.map_or(Lang::En, |(_, l)| l)
    }

    /// `text` with its ASCII digits written in this language's digits.
    pub(crate) fn digits(self, text: &str) -> String {
        match self {
            Lang::En => text.to_owned(),
            Lang::Bn => text
                .chars()
                .map(|c| match c.to_digit(10) {
                    Some(d) if c.is_ascii_digit() => BENGALI_DIGITS[d as usize],
                    _ => c,
                })
                .collect(),
        }
    }

    /// A count with this language's grouping and digits: `2,482,176` in
    /// English, `২৪,৮২,১৭৬` in Bangla.
    pub(crate) fn count(self, n: u128) -> String {
        self.grouped(&n.to_string())
    }

    /// A string of ASCII digits grouped as this language groups them.
    pub(crate) fn grouped(self, digits: &str) -> String {
        let len = digits.len();
        let mut out = String::with_capacity(len + len / 2);
        for (i, c) in digits.chars().enumerate() {
            let left = len - i;
            let comma = i > 0
                && match self {
                    Lang::En => left % 3 == 0,
                    // CLDR bn: #,##,##0 (a group of three, then of two).
                    Lang::Bn => left == 3 || (left > 3 && (left - 3) % 2 == 0),
                };
            if comma {
                out.push(',');
            }
            out.push(c);
        }
        self.digits(&out)
    }

    /// A number with `places` decimals in this language's digits.
    pub(crate) fn decimal(self, value: f64, places: usize) -> String {
        self.digits(&format!("{value:.places$}"))
    }

    /// A share of 0 to 1 as a percentage with one decimal (`45.7%`). A share
    /// that one decimal would round to nothing or to the whole says so
    /// (`<0.1%`, `>99.9%`: one word, for the text answers' columns) instead of
    /// showing `0.0%` or `100.0%`.
    pub(crate) fn percent(self, share: f64) -> String {
        self.percent_to(share, 1)
    }

    /// [`Self::percent`] with `places` decimals (`<0.01%` at two).
    pub(crate) fn percent_to(self, share: f64, places: usize) -> String {
        let percent = share * 100.0;
        let step = 10f64.powi(-(places as i32));
        let text = if percent > 0.0 && percent < step / 2.0 {
            format!("<{step:.places$}%")
        } else if percent >= 100.0 - step / 2.0 && percent < 100.0 {
            format!(">{:.places$}%", 100.0 - step)
        } else {
            format!("{percent:.places$}%")
        };
        self.digits(&text)
    }

    /// A `YYYY-MM-DD` (or `YYYY-MM`) date as the language writes it in
    /// full: `June 1, 2026`, `১ জুন, ২০২৬`. Anything else is shown as it is.
    pub(crate) fn date(self, iso: &str) -> String {
        let mut parts = iso.splitn(3, '-');
        let (Some(y), Some(m)) = (parts.next(), parts.next()) else {
            return iso.to_owned();
        };
        let day = parts.next().and_then(|d| d.parse::<u32>().ok());
        let Some(month) = m
            .parse::<usize>()
            .ok()
            .filter(|m| (1..=12).contains(m))
            .map(|m| self.month(m))
        else {
            return iso.to_owned();
        };
        if y.len() != 4 || !y.bytes().all(|b| b.is_ascii_digit()) {
            return iso.to_owned();
        }
        let text = match (self, day) {
            (Lang::En, Some(d)) => format!("{month} {d}, {y}"),
            (Lang::Bn, Some(d)) => format!("{d} {month}, {y}"),
            (_, None) => format!("{month} {y}"),
        };
        self.digits(&text)
    }

    /// A clock time: in English `h:mm a` (`3:49 PM`); in Bangla CLDR's
    /// `B h:mm`, the day period in words before the time (`রাত্রি ১১:১৩`,
    /// `সকাল ৯:০৫`: CLDR 48 `bn` flexible day periods, `dayPeriodRules`
    /// ভোর 04-06, সকাল 06-12, দুপুর 12-16, বিকাল 16-18, সন্ধ্যা 18-20, রাত্রি 20-04).
    pub(crate) fn clock(self, hour: u32, minute: u32) -> String {
        let h12 = match hour % 12 {
            0 => 12,
            h => h,
        };
        match self {
            Lang::En => {
                let period = if hour < 12 { "AM" } else { "PM" };
                format!("{h12}:{minute:02} {period}")
            }
            Lang::Bn => {
                let period = match hour {
                    4..=5 => "ভোর",
                    6..=11 => "সকাল",
                    12..=15 => "দুপুর",
                    16..=17 => "বিকাল",
                    18..=19 => "সন্ধ্যা",
                    _ => "রাত্রি",
                };
                self.digits(&format!("{period} {h12}:{minute:02}"))
            }
        }
    }

    fn month(self, m: usize) -> &'static str {
        match self {
            Lang::En => EN_MONTHS[m - 1],
            Lang::Bn => BN_MONTHS[m - 1],
        }
    }
}

/// A q-value (`0` to `1`, up to three decimals) in thousandths, `None` when malformed.
fn quality(v: &str) -> Option<u16> {
    let (int, frac) = v.split_once('.').unwrap_or((v, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac: u16 = format!("{frac:0<3}").parse().ok()?;
    match int {
        "0" => Some(frac),
        "1" if frac == 0 => Some(1000),
        _ => None,
    }
}

const BENGALI_DIGITS: [char; 10] = ['০', '১', '২', '৩', '৪', '৫', '৬', '৭', '৮', '৯'];
const EN_MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
/// CLDR 48 `bn`, months, format, wide.
const BN_MONTHS: [&str; 12] = [
    "জানুয়ারি",
    "ফেব্রুয়ারি",
    "মার্চ",
    "এপ্রিল",
    "মে",
    "জুন",
    "জুলাই",
    "আগস্ট",
    "সেপ্টেম্বর",
    "অক্টোবর",
    "নভেম্বর",
    "ডিসেম্বর",
];

/// The message catalogue: one variant per message, one column per language.
macro_rules! catalogue {
    ($($name:ident => $en:expr, $bn:expr;)*) => {
        /// A word or sentence of the pages. `{}` in a message is filled by [`Msg::fill`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(crate) enum Msg { $($name),* }

        impl Msg {
            /// Every message, in the order of the catalogue.
            #[cfg(test)]
            pub(crate) const ALL: &'static [Msg] = &[$(Msg::$name),*];

            /// The message in `lang`.
            pub(crate) fn text(self, lang: Lang) -> &'static str {
                match self {
                    $(Msg::$name => match lang { Lang::En => $en, Lang::Bn => $bn }),*
                }
            }
        }
    };
}

impl Msg {
    /// The health status (`ok`) in `lang`; another status as it is.
    pub(crate) fn status_word(status: &str, lang: Lang) -> &str {
        match status {
            "ok" => Msg::StatusOk.text(lang),
            _ => status,
        }
    }

    /// The message in `lang` with each `{}` replaced by the next of `args`.
    pub(crate) fn fill(self, lang: Lang, args: &[&str]) -> String {
        let mut out = String::new();
        let mut args = args.iter();
        let mut parts = self.text(lang).split("{}").peekable();
        while let Some(part) = parts.next() {
            out.push_str(part);
            if parts.peek().is_some() {
                out.push_str(args.next().copied().unwrap_or(""));
            }
        }
        out
    }
}

catalogue! {
    IpAddress => "IP address", "আইপি ঠিকানা";
    YourIpAddress => "Your IP address", "আপনার আইপি ঠিকানা";
    Network => "Network", "নেটওয়ার্ক";
    Location => "Location", "অবস্থান";
    AsNumber => "AS number", "AS নম্বর";
    Operator => "Operator", "পরিচালনাকারী";
    Range => "Range", "পরিসর";
    SpecialBlock => "Special-purpose block", "বিশেষ-উদ্দেশ্যের ব্লক";
    ReverseDns => "Reverse DNS", "রিভার্স ডিএনএস";
    Public => "Public address", "পাবলিক ঠিকানা";
    Version => "IP version", "আইপি সংস্করণ";
    Country => "Country", "দেশ";
    CountryBn => "Name in Bangla", "বাংলায় নাম";
    CountryEn => "Name in English", "ইংরেজিতে নাম";
    CountryCode => "Country code", "দেশের কোড";
    Continent => "Continent", "মহাদেশ";
    City => "City", "শহর";
    Coordinates => "Coordinates", "স্থানাঙ্ক";
    Accuracy => "Accuracy", "নির্ভুলতা";
    TimeZone => "Time zone", "সময় অঞ্চল";
    LocalTime => "Local time", "স্থানীয় সময়";
    SpansZones => "{} spans {} time zones: no one local time at country accuracy", "{} {}টি সময় অঞ্চলে বিস্তৃত: দেশ পর্যন্ত নির্ভুলতায় একটি স্থানীয় সময় নেই";
    Currency => "Currency", "মুদ্রা";
    CallingCode => "Calling code", "কলিং কোড";
    Yes => "Yes", "হ্যাঁ";
    No => "No", "না";
    North => "N", "উত্তর";
    South => "S", "দক্ষিণ";
    East => "E", "পূর্ব";
    West => "W", "পশ্চিম";
    CountryCentroid => "country centroid", "দেশের কেন্দ্রবিন্দু";
    AccuracyCountry => "Country: the place is the country's centre, not the address's", "দেশ পর্যন্ত: অবস্থানটি দেশের কেন্দ্র, ঠিকানার নিজের জায়গা নয়";
    AccuracyCity => "City: the place is the city's, not the street's", "শহর পর্যন্ত: অবস্থানটি শহরের, রাস্তার নয়";
    NoLocation => "No location data for this address", "এই ঠিকানার কোনো অবস্থান-তথ্য নেই";
    SpecialNoLocation => "a special-purpose address, no location", "একটি বিশেষ-উদ্দেশ্যের ঠিকানা, কোনো অবস্থান নেই";
    PrivateNoLocation => "Private or special-purpose address: no location", "ব্যক্তিগত বা বিশেষ-উদ্দেশ্যের ঠিকানা: কোনো অবস্থান নেই";
    LookUp => "Look up", "খুঁজুন";
    LookUpPlaceholder => "Address, prefix, AS number or country", "ঠিকানা, প্রিফিক্স, AS নম্বর বা দেশ";
    Copy => "Copy", "কপি";
    Copied => "Copied", "কপি হয়েছে";
    CommandFor => "Command that prints it", "যে কমান্ড এটি দেখায়";
    ThisPageAs => "This page as", "এই পৃষ্ঠা অন্য রূপে";
    ApiDocs => "API documentation", "API নথি";
    ApiDocsShort => "API docs", "API নথি";
    DataReleases => "Data: country {}, ASN {}", "ডেটা: দেশ {}, ASN {}";
    Centroids => "Coordinates are country centroids, not street addresses.", "স্থানাঙ্কগুলো দেশের কেন্দ্রবিন্দু, রাস্তার ঠিকানা নয়।";
    AsnAlso => "ASN data also from RouteViews and NRO (CC BY 4.0)", "ASN ডেটা RouteViews ও NRO থেকেও (CC BY 4.0)";
    AutonomousSystem => "Autonomous system", "অটোনোমাস সিস্টেম";
    Addresses => "Addresses", "ঠিকানা";
    AddressesV4 => "IPv4 addresses", "IPv4 ঠিকানা";
    AddressesV6 => "IPv6 addresses", "IPv6 ঠিকানা";
    Slash48s => "{} /48 networks", "{}টি /৪৮ নেটওয়ার্ক";
    PrefixesV4 => "IPv4 prefixes", "IPv4 প্রিফিক্স";
    PrefixesV6 => "IPv6 prefixes", "IPv6 প্রিফিক্স";
    Prefixes => "Prefixes", "প্রিফিক্স";
    Countries => "Countries of its IPv4 space", "এর IPv4 ঠিকানাগুলোর দেশ";
    Share => "Share", "অংশ";
    PageOf => "Page {} of {}: prefixes {} to {} of {}", "পৃষ্ঠা {} / {}: {} থেকে {} নম্বর প্রিফিক্স, মোট {}";
    Next => "Next page", "পরের পৃষ্ঠা";
    Previous => "Previous page", "আগের পৃষ্ঠা";
    FilterPrefixes => "Filter the prefixes on this page", "এই পৃষ্ঠার প্রিফিক্স ছাঁকুন";
    DownloadCsv => "All prefixes as CSV", "সব প্রিফিক্স CSV হিসেবে";
    ErrorHeading => "Error", "ত্রুটি";
    Health => "Health", "অবস্থা";
    Home => "Home", "প্রথম পাতা";
    WorldMap => "World map with {} highlighted", "বিশ্বের মানচিত্রে {} চিহ্নিত";
    AsMap => "World map: the countries of its IPv4 space, darker for a larger share", "বিশ্বের মানচিত্র: এর IPv4 ঠিকানার দেশগুলো, বড় অংশ গাঢ় রঙে";
    Source => "Source", "উৎস";
    Message => "Message", "বার্তা";
    About => "About", "বিবরণ";
    RfcLink => "RFC", "RFC";
    AsText => "text", "টেক্সট";
    Status => "Status", "HTTP অবস্থা";
    ErrorCodeLabel => "Error code", "ত্রুটির কোড";
    StatusLine => "Status {}, error `{}`.", "HTTP অবস্থা {}, ত্রুটির কোড `{}`।";
    YourFamilyAddress => "Your {} address", "আপনার {} ঠিকানা";
    FromATerminal => "From a terminal", "টার্মিনাল থেকে";
    CmdAddress => "your address, nothing else", "শুধু আপনার ঠিকানা";
    CmdJson => "all of the above, as JSON", "ওপরের সবকিছু, JSON-এ";
    CmdCountryCode => "your country code", "আপনার দেশের কোড";
    CmdAsn => "your AS number", "আপনার AS নম্বর";
    CmdAnyAddress => "any address", "যেকোনো ঠিকানা";
    AskOrigin => "ask {}", "{}-কে জিজ্ঞেস করুন";
    NotReachable => "not reachable", "পৌঁছানো গেল না";
    PrevKey => "prev", "আগের পৃষ্ঠা";
    NextKey => "next", "পরের পৃষ্ঠা";
    PageKey => "page", "পৃষ্ঠা";
    OtherForms => "Other forms:", "অন্য রূপে:";
    HealthRelease => "{} release", "{}: প্রকাশের তারিখ";
    HealthIdentity => "release (date and content digest)", "রিলিজ (তারিখ ও বিষয়বস্তুর ডাইজেস্ট)";
    HealthRows => "{} rows", "{}: সারি";
    HealthSource => "{} source", "{}: উৎস";
    HealthRefused => "refused {}", "{}: বাতিল ফাইল";
    FlagsCreditName => "Flags:", "পতাকা:";
    StatusOk => "ok", "ঠিক আছে";
    Prefix => "Prefix", "প্রিফিক্স";
    Covering => "Covering prefix in the data", "ডেটায় একে ধারণকারী প্রিফিক্স";
    NoCovering => "none: the prefix spans several rows of the data", "নেই: প্রিফিক্সটি ডেটার একাধিক সারিতে ছড়ানো";
    DataRows => "Rows of the data", "ডেটার সারি";
    MoreSpecific => "More specific prefixes", "আরও নির্দিষ্ট প্রিফিক্স";
    NoData => "no data", "তথ্য নেই";
    RowsPageOf => "Page {} of {}: rows {} to {} of {}", "পৃষ্ঠা {} / {}: {} থেকে {} নম্বর সারি, মোট {}";
    TimeZones => "Time zones", "সময় অঞ্চলসমূহ";
    WorldShare => "{} of the world's", "বিশ্বের {}";
    CountryAses => "Its autonomous systems, by the addresses they hold there", "এর অটোনোমাস সিস্টেম, সেখানে তাদের ঠিকানার সংখ্যা অনুযায়ী";
    AsesPageOf => "Page {} of {}: ASes {} to {} of {}", "পৃষ্ঠা {} / {}: {} থেকে {} নম্বর AS, মোট {}";
    Flag => "Flag", "পতাকা";
    AsCount => "Autonomous systems", "অটোনোমাস সিস্টেম";
    Rank => "Rank", "ক্রম";
    MapScale => "The map's scale: the share of the AS's IPv4 addresses", "মানচিত্রের মাপকাঠি: AS-এর IPv4 ঠিকানার অংশ";
    ShowAllCountries => "Show the other {} countries of its IPv4 space", "এর IPv4 ঠিকানার বাকি {}টি দেশ দেখুন";
    ShowMoreAses => "Show the other {} ASes of this page", "এই পৃষ্ঠার বাকি {}টি AS দেখুন";
    CountriesV6 => "Countries of its IPv6 space ({})", "এর IPv6 ঠিকানার দেশ ({}টি)";
    ToPrefixes => "Its prefixes ({}) ↓", "এর প্রিফিক্স ({}টি) ↓";
    SearchPrefixes => "Search all its prefixes", "এর সব প্রিফিক্সে খুঁজুন";
    SearchButton => "Search", "খুঁজুন";
    SearchFound => "{} prefixes match {}", "{}টি প্রিফিক্স {} এর সাথে মেলে";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_is_read_with_its_q_values() {
        let n = |h| Lang::negotiate(None, Some(h));
        assert_eq!(n("bn"), Lang::Bn);
        assert_eq!(n("bn-BD,bn;q=0.9"), Lang::Bn);
        assert_eq!(n("en-US,en;q=0.9,bn;q=0.8"), Lang::En);
        assert_eq!(n("de,bn;q=0.5,en;q=0.4"), Lang::Bn);
        assert_eq!(n("en;q=0.2, bn;q=0.7"), Lang::Bn);
        assert_eq!(n("bn;q=0"), Lang::En);
        assert_eq!(n("bn;q=2"), Lang::En, "a malformed q is ignored");
        assert_eq!(n("fr"), Lang::En);
        assert_eq!(Lang::negotiate(None, None), Lang::En);
        assert_eq!(Lang::negotiate(Some("bn"), Some("en")), Lang::Bn);
        assert_eq!(Lang::negotiate(Some("en"), Some("bn")), Lang::En);
        assert_eq!(Lang::negotiate(Some("xx"), Some("bn")), Lang::Bn);
    }

    #[test]
    fn numbers_and_dates_as_cldr_writes_them() {
        assert_eq!(Lang::En.count(2_482_176), "2,482,176");
        assert_eq!(Lang::Bn.count(2_482_176), "২৪,৮২,১৭৬");
        assert_eq!(Lang::Bn.count(12_345_678), "১,২৩,৪৫,৬৭৮");
        assert_eq!(Lang::Bn.count(999), "৯৯৯");
        assert_eq!(Lang::Bn.count(1000), "১,০০০");
        assert_eq!(Lang::En.count(0), "0");
        assert_eq!(
            Lang::En.count(79_228_162_514_264_337_593_543_950_336),
            "79,228,162,514,264,337,593,543,950,336"
        );
        assert_eq!(Lang::En.date("2026-06-01"), "June 1, 2026");
        assert_eq!(Lang::Bn.date("2026-06-17"), "১৭ জুন, ২০২৬");
        assert_eq!(Lang::Bn.date("2026-06"), "জুন ২০২৬");
        assert_eq!(Lang::En.date("unknown"), "unknown");
        assert_eq!(Lang::En.clock(15, 9), "3:09 PM");
        assert_eq!(Lang::Bn.clock(0, 30), "রাত্রি ১২:৩০");
        assert_eq!(Lang::Bn.clock(23, 13), "রাত্রি ১১:১৩");
        assert_eq!(Lang::Bn.clock(9, 5), "সকাল ৯:০৫");
        assert_eq!(Lang::Bn.clock(13, 0), "দুপুর ১:০০");
        assert_eq!(Lang::Bn.clock(17, 45), "বিকাল ৫:৪৫");
        assert_eq!(Lang::Bn.clock(19, 1), "সন্ধ্যা ৭:০১");
        assert_eq!(Lang::Bn.clock(4, 30), "ভোর ৪:৩০");
        assert_eq!(Lang::Bn.percent(0.4567), "৪৫.৭%");
    }

    #[test]
    fn a_share_that_rounds_to_nothing_or_to_the_whole_says_so() {
        assert_eq!(Lang::En.percent(0.0), "0.0%");
        assert_eq!(Lang::En.percent(1.0), "100.0%");
        assert_eq!(Lang::En.percent(0.000_001), "<0.1%");
        assert_eq!(Lang::En.percent(0.000_49), "<0.1%");
        assert_eq!(Lang::En.percent(0.000_6), "0.1%");
        assert_eq!(Lang::En.percent(0.999_4), "99.9%");
        assert_eq!(Lang::En.percent(0.999_6), ">99.9%");
        assert_eq!(Lang::Bn.percent(0.000_001), "<০.১%");
        assert_eq!(Lang::En.percent_to(0.000_01, 2), "<0.01%");
        assert_eq!(Lang::En.percent_to(0.000_5, 2), "0.05%");
    }

    #[test]
    fn messages_fill_their_places() {
        assert_eq!(
            Msg::DataReleases.fill(Lang::En, &["June 1, 2026", "June 17, 2026"]),
            "Data: country June 1, 2026, ASN June 17, 2026"
        );
        assert_eq!(Msg::Slash48s.fill(Lang::Bn, &["১০"]), "১০টি /৪৮ নেটওয়ার্ক");
    }

    /// Names and identifiers a Bangla message writes as they are written
    /// everywhere.
    const AS_WRITTEN: &[&str] = &[
        "IPv4",
        "IPv6",
        "AS",
        "ASN",
        "API",
        "CSV",
        "RFC",
        "CC BY 4.0",
        "RouteViews",
        "NRO",
        "HTTP",
        "JSON",
    ];

    #[test]
    fn every_message_has_both_languages_and_bangla_has_no_latin_digit() {
        for &msg in Msg::ALL {
            let (en, bn) = (msg.text(Lang::En), msg.text(Lang::Bn));
            assert!(!en.trim().is_empty() && !bn.trim().is_empty(), "{msg:?}");
            assert_eq!(
                en.matches("{}").count(),
                bn.matches("{}").count(),
                "{msg:?}: the same places to fill"
            );
            let mut rest = bn.to_owned();
            for name in AS_WRITTEN {
                rest = rest.replace(name, "");
            }
            assert!(
                !rest.bytes().any(|b| b.is_ascii_digit()),
                "{msg:?}: a Latin digit in {bn:?}"
            );
            // English words stay English only where they are names.
            let latin_word = rest
                .split(|c: char| !c.is_ascii_alphabetic())
                .find(|w| w.len() > 1);
            assert_eq!(latin_word, None, "{msg:?}: {bn:?}");
        }
    }

    #[test]
    fn every_error_code_has_its_words_in_both_languages() {
        for code in crate::model::ErrorCode::ALL {
            let words = code.words();
            assert!(!words.en.is_empty() && !words.bn.is_empty(), "{code:?}");
            assert!(words.bn_says.ends_with('।'), "{code:?}");
            assert!(!code.when().is_empty(), "{code:?}");
            assert!((400..600).contains(&code.status()), "{code:?}");
        }
    }
}
