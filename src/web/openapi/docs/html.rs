//! `/docs` as HTML: a table of contents, then each group of operations
//! (each operation under its operationId as anchor, with its parameters,
//! try-it form, examples and responses), one table per schema, the error
//! codes and the limit answers, each once. The try-it forms are GET forms
//! to `/docs/try` (which redirects to the answer); [`TRY_SCRIPT`] shows the
//! answer on the page instead.

use std::fmt::Write;

use super::cmark;
use crate::web::openapi::docs::{
    ClientExample, DocsPage, Example, Operation, TryIt, schema_anchor,
};
use crate::web::render::html_frame::{Frame, document, esc};
use crate::web::render::view::View;

/// The docs page's own style, allowed by its hash ([`crate::web::render::csp`]).
///
/// The operation and schema sections are `content-visibility: auto`: laid
/// out only when scrolled near. The room held for one not yet laid out is at
/// least its real height on a phone (240rem; the assets route's long list,
/// 800rem), so its content never reaches into the next section while the
/// browser has it skipped (an accessibility checker measuring a skipped
/// section saw one button over another). `tests/py/docs_check.py` measures it.
pub(crate) const DOCS_STYLE: &str = r#"
main{max-width:1100px}nav#toc ol{margin:.2rem 0;padding-left:1.3rem}nav#toc>ol>li{margin:.35rem 0}
nav#toc{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:.6rem 1rem;margin:1rem 0}
h2{margin-top:2.2rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}h3{margin:0 0 .3rem;font-size:1.15rem;overflow-wrap:anywhere}
section.op{background:var(--card);border:1px solid var(--line);border-radius:.75rem;padding:.8rem 1rem;margin:1rem 0}
section.op,section[id^=schema-]{content-visibility:auto;contain-intrinsic-size:auto 240rem}#asset{contain-intrinsic-size:auto 800rem}
.method{display:inline-block;font:600 .8rem ui-monospace,Menlo,Consolas,monospace;padding:.1rem .4rem;border-radius:.3rem;background:#0b5cc0;color:#fff;vertical-align:.15rem;margin-right:.3rem}
.method.post{background:#1d7a3a}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em}
:not(pre)>code{background:var(--bg);border:1px solid var(--line);border-radius:.25rem;padding:0 .2rem;overflow-wrap:anywhere}td code{white-space:nowrap}
pre{background:var(--bg);border:1px solid var(--line);border-radius:.5rem;padding:.6rem .8rem;overflow:auto;max-height:24rem;margin:.3rem 0 .8rem;white-space:pre}
.table{overflow-x:auto}table{border-collapse:collapse;width:100%;margin:.4rem 0 .8rem;font-size:.95rem}
th,td{border-bottom:1px solid var(--line);padding:.35rem .5rem;text-align:left;vertical-align:top}th{font-size:.8rem;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
td p{margin:0 0 .3rem}td:first-child{white-space:nowrap}
form.try{display:flex;flex-wrap:wrap;align-items:end;gap:.5rem;margin:.5rem 0}form.try label{display:flex;flex-direction:column;font-size:.8rem;color:var(--muted);flex:1;min-width:9rem}
form.try[hidden]{display:none}form.try label:has(textarea){flex-basis:100%}form.try textarea{flex-basis:100%;font:inherit;font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9rem;padding:.45rem .6rem;border:1px solid var(--line);border-radius:.5rem;background:var(--bg);color:var(--fg)}
form.try input,form.try select{font:inherit;font-size:1rem;padding:.45rem .6rem;border:1px solid var(--line);border-radius:.5rem;background:var(--bg);color:var(--fg)}
pre.live{flex-basis:100%}h4{margin:.6rem 0 .2rem;font-size:.95rem}
nav#toc summary{cursor:pointer;font-weight:600}nav#toc a[aria-current]{font-weight:700;color:var(--fg)}
.langs{margin:.4rem 0 .8rem}.langs h4 small{font-weight:400;color:var(--muted)}.langs.tabbed .lang>h4{display:none}
.langs [role=tablist]{display:flex;flex-wrap:wrap;gap:.3rem;margin:.5rem 0 .2rem}.langs [role=tab]{font:inherit;font-size:.85rem;padding:.2rem .7rem;border:1px solid var(--line);border-radius:.4rem;background:var(--bg);color:var(--fg);cursor:pointer}
.langs [role=tab][aria-selected=true]{background:#0b5cc0;border-color:#0b5cc0;color:#fff}
.code{position:relative}.code>pre{padding-right:4.5rem}.code>button.copy{position:absolute;top:.35rem;right:.35rem;background:var(--card)}
@media(min-width:1024px){main{max-width:1440px}.docs{display:grid;grid-template-columns:19rem minmax(0,1fr);gap:1.5rem;align-items:start}
nav#toc{position:sticky;top:.5rem;max-height:calc(100vh - 1rem);overflow:auto;margin:1rem 0;font-size:.85rem}nav#toc summary{display:none}
nav#toc details::details-content{content-visibility:visible;display:contents}}
@media(max-width:1023.98px){nav#toc{position:sticky;top:0;z-index:5;margin:.5rem 0;padding:.45rem .8rem;box-shadow:0 2px 6px rgba(0,0,0,.12)}
nav#toc details[open]>ol{max-height:70vh;overflow:auto}[id]{scroll-margin-top:3.5rem}}
"#;

/// Shows a try-it form's answer on the page: the path filled from the
/// inputs as `/docs/try` would, the answer's status and body as text
/// (`textContent`: never markup). Allowed by its hash, with `connect-src 'self'`.
pub(crate) const TRY_SCRIPT: &str = r#"for(const f of document.querySelectorAll("form[data-path]")){f.addEventListener("submit",e=>{e.preventDefault();let p=f.dataset.path.replace(/\{(\w+)\}/g,(m,n)=>encodeURIComponent(f.elements[n].value.trim()));if(f.dataset.query)p+="?"+f.dataset.query;const o=f.querySelector("pre.live");o.hidden=false;o.textContent="GET "+p;fetch(p,{headers:{Accept:"application/json, text/plain;q=0.9"}}).then(r=>r.text().then(t=>{try{t=JSON.stringify(JSON.parse(t),null,2)}catch(_){}o.textContent="GET "+p+"\n"+r.status+"\n\n"+t})).catch(x=>{o.textContent="GET "+p+"\n"+x})})}
const toc=document.querySelector("nav#toc");if(toc&&window.IntersectionObserver){const links=new Map([...toc.querySelectorAll("a")].map(a=>[a.getAttribute("href").slice(1),a]));const io=new IntersectionObserver(es=>{for(const e of es){const a=links.get(e.target.id);if(e.isIntersecting&&a){for(const b of links.values())b.removeAttribute("aria-current");a.setAttribute("aria-current","location")}}},{rootMargin:"0px 0px -75% 0px"});for(const id of links.keys()){const el=document.getElementById(id);if(el)io.observe(el)}toc.addEventListener("click",e=>{if(e.target.closest("a")&&matchMedia("(max-width:1023.98px)").matches)toc.querySelector("details").open=false})}
for(const f of document.querySelectorAll("form[data-post]")){f.hidden=false;f.addEventListener("submit",e=>{e.preventDefault();const a=f.elements.body.value.split("\n").map(s=>s.trim()).filter(s=>s!=="");const q=[...f.querySelectorAll("select")].map(s=>s.name+"="+encodeURIComponent(s.value)).join("&");const p=f.dataset.post+(q?"?"+q:"");const o=f.querySelector("pre.live");o.hidden=false;o.textContent="POST "+p;fetch(p,{method:"POST",headers:{"Content-Type":"application/json"},body:JSON.stringify(a)}).then(r=>r.text().then(t=>{try{t=JSON.stringify(JSON.parse(t),null,2)}catch(_){}o.textContent="POST "+p+"\n"+r.status+"\n\n"+t})).catch(x=>{o.textContent="POST "+p+"\n"+x})})}
const sets=[...document.querySelectorAll("div.langs")];function pick(l){for(const d of sets){for(const p of d.querySelectorAll(".lang"))p.hidden=p.dataset.lang!==l;for(const b of d.querySelectorAll("[role=tab]"))b.setAttribute("aria-selected",String(b.dataset.lang===l))}}for(const d of sets){const bar=document.createElement("div");bar.setAttribute("role","tablist");bar.setAttribute("aria-label","Language");for(const p of d.querySelectorAll(".lang")){const b=document.createElement("button");b.type="button";b.setAttribute("role","tab");b.dataset.lang=p.dataset.lang;b.textContent=p.dataset.name;b.addEventListener("click",()=>pick(b.dataset.lang));bar.append(b)}d.classList.add("tabbed");d.prepend(bar)}if(sets.length)pick("curl");"#;

pub(crate) fn page(d: &DocsPage) -> String {
    let mut body = format!(
        "<header><div><h1>{} API <small class=\"muted\">{}</small></h1></div></header><div class=\"lead\">{}</div><p>Base URL: <code id=\"base\">{}</code> · <a href=\"/api/v1/openapi.json\">OpenAPI 3.1</a> · <a href=\"/docs?format=md\">Markdown</a> · <a href=\"/docs?format=text\">text</a> · <a href=\"/llms.txt\">llms.txt</a></p>",
        esc(&d.title),
        esc(&d.version),
        cmark::html(&d.description),
        esc(&d.base_url)
    );
    body.push_str("<div class=\"docs\">");
    contents(&mut body, d);
    body.push_str("<div class=\"doc\">");
    for g in &d.groups {
        let _ = write!(
            body,
            "<section id=\"{}\"><h2>{}</h2>{}",
            esc(&g.tag),
            esc(&g.title),
            cmark::html(&g.description)
        );
        for op in &g.operations {
            operation(&mut body, op);
        }
        body.push_str("</section>");
    }
    fields(&mut body, d);
    errors(&mut body, d);
    let _ = write!(
        body,
        "<p class=\"muted\">Data: {}</p></div></div><script>{TRY_SCRIPT}</script>",
        esc(&d.attribution)
    );
    let head = format!("<style>{DOCS_STYLE}</style>");
    let frame = Frame {
        head: &head,
        translated: false,
        script: true,
        ..Frame::new("API documentation", "/docs")
    };
    document(&frame, &body, &View::default())
}

fn method_badge(method: &str) -> String {
    format!(
        "<span class=\"method {}\">{}</span>",
        esc(&method.to_ascii_lowercase()),
        esc(method)
    )
}

/// The table of contents: every group and operation, then the references.
fn contents(body: &mut String, d: &DocsPage) {
    body.push_str(
        "<nav id=\"toc\" aria-label=\"Contents\"><details><summary>Contents</summary><ol>",
    );
    for g in &d.groups {
        let _ = write!(
            body,
            "<li><a href=\"#{}\">{}</a><ol>",
            esc(&g.tag),
            esc(&g.title)
        );
        for op in &g.operations {
            let _ = write!(
                body,
                "<li><a href=\"#{}\"><code>{} {}</code></a> {}</li>",
                esc(&op.id),
                esc(&op.method),
                esc(&op.path),
                cmark::inline_html(&op.summary)
            );
        }
        body.push_str("</ol></li>");
    }
    let links = |protocol: bool| -> String {
        d.schemas
            .iter()
            .filter(|s| is_protocol(&s.name) == protocol)
            .map(|s| {
                format!(
                    "<a href=\"#{}\">{}</a>",
                    esc(&schema_anchor(&s.name)),
                    esc(&s.name)
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = write!(
        body,
        "<li><a href=\"#fields\">Fields</a>: {}</li><li><a href=\"#protocol-objects\">MCP and JSON-RPC objects</a>: {}",
        links(false),
        links(true)
    );
    body.push_str("</li><li><a href=\"#errors\">Error codes</a></li><li><a href=\"#limits\">Limits: 408, 414, 429, 503</a></li></ol></details></nav>");
}

fn operation(body: &mut String, op: &Operation) {
    let _ = write!(
        body,
        "<section class=\"op\" id=\"{}\"><h3>{}<code>{}</code></h3><p>{}</p>{}",
        esc(&op.id),
        method_badge(&op.method),
        esc(&op.path),
        cmark::inline_html(&op.summary),
        cmark::html(&op.description)
    );
    if !op.parameters.is_empty() {
        body.push_str("<div class=\"table\"><table><thead><tr><th>Parameter</th><th>In</th><th>Type</th><th>Description</th></tr></thead><tbody>");
        for p in &op.parameters {
            let _ = write!(
                body,
                "<tr><td><code>{}</code>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&p.name),
                if p.required { " (required)" } else { "" },
                esc(&p.location),
                esc(&p.schema),
                cmark::inline_html(&p.description)
            );
        }
        body.push_str("</tbody></table></div>");
    }
    if !op.body.is_empty() {
        body.push_str("<h4>Request body</h4><div class=\"table\"><table><thead><tr><th>Media type</th><th>Type</th><th>Description</th><th>Example</th></tr></thead><tbody>");
        for b in &op.body {
            let _ = write!(
                body,
                "<tr><td><code>{}</code>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>",
                esc(&b.media_type),
                if b.required { " (required)" } else { "" },
                esc(&b.schema),
                cmark::inline_html(&b.description),
                esc(&b.example)
            );
        }
        body.push_str("</tbody></table></div>");
    }
    match &op.try_it {
        Some(t) if t.body.is_some() => post_form(body, t),
        Some(t) => try_form(body, &op.id, t),
        None => {}
    }
    clients(body, op);
    for (n, e) in op.examples.iter().enumerate() {
        example(body, &format!("ex-{}-{n}", op.id), e);
    }
    body.push_str("<div class=\"table\"><table><thead><tr><th>Status</th><th>Description</th><th>Media types</th></tr></thead><tbody>");
    for r in &op.responses {
        let _ = write!(
            body,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&r.status),
            cmark::inline_html(&r.description),
            esc(&r.media_types.join(", "))
        );
    }
    if !op.limits.is_empty() {
        let _ = write!(
            body,
            "<tr><td>{}</td><td>The limits' answers: see <a href=\"#limits\">Limits</a></td><td></td></tr>",
            esc(&op.limits.join(", "))
        );
    }
    body.push_str("</tbody></table></div></section>");
}

/// The call in `curl` (the first example's) and through each generated
/// client: one after another, each under its heading; tabs with the
/// page's script ([`TRY_SCRIPT`]), one language chosen for the whole page.
fn clients(body: &mut String, op: &Operation) {
    let Some(first) = op.examples.first() else {
        return;
    };
    if op.clients.is_empty() {
        return;
    }
    body.push_str("<div class=\"langs\">");
    let curl = ClientExample {
        language: "curl".into(),
        name: "curl".into(),
        generator: String::new(),
        code: first.request.clone(),
    };
    for c in std::iter::once(&curl).chain(&op.clients) {
        let id = format!("call-{}-{}", op.id, c.language);
        let generator = if c.generator.is_empty() {
            String::new()
        } else {
            format!(" <small>({})</small>", esc(&c.generator))
        };
        let _ = write!(
            body,
            "<div class=\"lang\" data-lang=\"{}\" data-name=\"{}\"><h4>{}{generator}</h4><div class=\"code\"><pre class=\"client\"><code id=\"{id}\">{}</code></pre>{}</div></div>",
            esc(&c.language),
            esc(&c.name),
            esc(&c.name),
            esc_pre(&c.code),
            copy_button(&id)
        );
    }
    body.push_str("</div>");
}

/// The batch's form: hidden until the page's script shows it (a form
/// cannot send a JSON body), which sends it and shows the answer.
fn post_form(body: &mut String, t: &TryIt) {
    let _ = write!(
        body,
        "<form class=\"try\" data-post=\"{}\" hidden><label>Addresses, one a line<textarea name=\"body\" rows=\"4\" spellcheck=\"false\">{}</textarea></label>",
        esc(&t.path),
        esc(t.body.as_deref().unwrap_or_default())
    );
    for i in &t.inputs {
        let _ = write!(
            body,
            "<label>{}<select name=\"{}\">",
            esc(&i.label),
            esc(&i.name)
        );
        for o in &i.options {
            let selected = if *o == i.value { " selected" } else { "" };
            let _ = write!(body, "<option{selected}>{}</option>", esc(o));
        }
        body.push_str("</select></label>");
    }
    body.push_str("<button type=\"submit\">Try it</button><pre class=\"live\" aria-live=\"polite\" hidden></pre></form><noscript><p class=\"muted\">Its try-it form needs JavaScript (a form cannot send a JSON body): the curl example below sends the same request.</p></noscript>");
}

fn try_form(body: &mut String, id: &str, t: &TryIt) {
    let _ = write!(
        body,
        "<form class=\"try\" method=\"get\" action=\"/docs/try\" data-path=\"{}\" data-query=\"{}\"><input type=\"hidden\" name=\"op\" value=\"{}\">",
        esc(&t.path),
        esc(&t.query),
        esc(id)
    );
    for i in &t.inputs {
        let _ = write!(body, "<label>{}", esc(&i.label));
        if i.options.is_empty() {
            let _ = write!(
                body,
                "<input name=\"{}\" value=\"{}\" autocomplete=\"off\" spellcheck=\"false\">",
                esc(&i.name),
                esc(&i.value)
            );
        } else {
            let _ = write!(body, "<select name=\"{}\">", esc(&i.name));
            for o in &i.options {
                let selected = if *o == i.value { " selected" } else { "" };
                let _ = write!(body, "<option{selected}>{}</option>", esc(o));
            }
            body.push_str("</select>");
        }
        body.push_str("</label>");
    }
    body.push_str("<button type=\"submit\">Try it</button><pre class=\"live\" aria-live=\"polite\" hidden></pre></form>");
}

fn example(body: &mut String, id: &str, e: &Example) {
    let _ = write!(
        body,
        "<h4>Example: {}</h4><div class=\"code\"><pre class=\"request\"><code id=\"{id}\">{}</code></pre>{}</div>",
        esc(&e.title),
        esc_pre(&e.request),
        copy_button(id)
    );
    if let Some(answer) = &e.answer {
        // An empty line (`/city` without a city table) takes no label: ARIA
        // allows one on a `pre` only beside content.
        let label = match answer.trim().is_empty() {
            true => String::new(),
            false => format!(" aria-label=\"Answer ({})\"", esc(&e.media_type)),
        };
        let _ = write!(
            body,
            "<pre class=\"answer\"{label}><code>{}</code></pre>",
            esc_pre(answer)
        );
    }
}

/// The pages' copy button for the code `id` (shown by their script).
fn copy_button(id: &str) -> String {
    format!(
        "<button type=\"button\" class=\"copy\" data-for=\"{}\" data-done=\"Copied\" hidden>Copy</button>",
        esc(id)
    )
}

/// [`esc`] that keeps line breaks (for `<pre>`).
fn esc_pre(s: &str) -> String {
    s.split('\n').map(esc).collect::<Vec<_>>().join("\n")
}

/// A schema of the MCP and JSON-RPC endpoint's messages, listed apart from
/// the objects the lookups answer with.
fn is_protocol(name: &str) -> bool {
    name.starts_with("Mcp") || name.starts_with("JsonRpc")
}

fn fields(body: &mut String, d: &DocsPage) {
    body.push_str("<section id=\"fields\"><h2>Fields</h2><p>Every member of every object the lookups answer with, once. A member marked (required) is always sent; one that may be null says so.</p>");
    for s in d.schemas.iter().filter(|s| !is_protocol(&s.name)) {
        schema_table(body, d, s);
    }
    body.push_str("</section><section id=\"protocol-objects\"><h2>MCP and JSON-RPC objects</h2><p>The messages of the MCP endpoint (JSON-RPC 2.0), for agents; people reading a lookup need only the fields above.</p>");
    for s in d.schemas.iter().filter(|s| is_protocol(&s.name)) {
        schema_table(body, d, s);
    }
    body.push_str("</section>");
}

fn schema_table(body: &mut String, d: &DocsPage, s: &super::SchemaDoc) {
    let _ = write!(
        body,
        "<section id=\"{}\"><h3>{}</h3>{}<div class=\"table\"><table><thead><tr><th>Field</th><th>Type</th><th>Description</th><th>Example</th></tr></thead><tbody>",
        esc(&schema_anchor(&s.name)),
        esc(&s.name),
        cmark::html(&s.description)
    );
    for f in &s.fields {
        let kind: Vec<String> = f
            .kind
            .split(' ')
            .map(|word| match d.schemas.iter().find(|o| o.name == word) {
                Some(o) => format!(
                    "<a href=\"#{}\">{}</a>",
                    esc(&schema_anchor(&o.name)),
                    esc(word)
                ),
                None if word == "ErrorCode" => "<a href=\"#errors\">ErrorCode</a>".to_owned(),
                None => esc(word),
            })
            .collect();
        let kind = kind.join(" ");
        let _ = write!(
            body,
            "<tr><td><code>{}</code>{}</td><td>{kind}</td><td>{}</td><td><code>{}</code></td></tr>",
            esc(&f.name),
            if f.required { " (required)" } else { "" },
            cmark::inline_html(&f.description),
            esc(&f.example)
        );
    }
    body.push_str("</tbody></table></div></section>");
}

fn errors(body: &mut String, d: &DocsPage) {
    body.push_str("<section id=\"errors\"><h2>Error codes</h2><p>Every error answer carries an <a href=\"#schema-ApiError\">ApiError</a> object (in JSON; the other formats show the same code and message). Its <code>error</code> is one of these.</p><div class=\"table\"><table><thead><tr><th>Code</th><th>Status</th><th>When</th></tr></thead><tbody>");
    for e in &d.errors {
        let _ = write!(
            body,
            "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
            esc(&e.code),
            e.status,
            cmark::inline_html(&e.when)
        );
    }
    body.push_str("</tbody></table></div></section><section id=\"limits\"><h2>Limits</h2><p>Every route sits behind the same limits; these answers can come from any operation that lists their status.</p><div class=\"table\"><table><thead><tr><th>Status</th><th>Description</th><th>Media types</th></tr></thead><tbody>");
    for r in &d.limits {
        let _ = write!(
            body,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(&r.status),
            cmark::inline_html(&r.description),
            esc(&r.media_types.join(", "))
        );
    }
    body.push_str("</tbody></table></div></section>");
}
