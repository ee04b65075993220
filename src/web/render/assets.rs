//! The files the HTML pages load from this origin, each named by its content
//! hash so a browser may keep it for a year: the world map
//! ([`super::map::world_map`]), the flags ([`super::flags`]) and the pages'
//! one script ([`script`]). [`find`] answers a name.

use std::sync::OnceLock;

pub(crate) use super::asset::Asset;

/// The pages' script, progressive: the page works without it. It shows the
/// copy buttons beside the `curl` commands (and writes the command with
/// `https://` when the page came over HTTPS), and the filter box of an AS's
/// prefixes. While a filter is typed, the prefix list's chunks are all laid
/// out (class `filtering`) and a chunk with no match is hidden, so the
/// matches stand together instead of behind the room a skipped chunk holds.
/// Only `textContent`, `hidden` and that class change: never markup.
const SCRIPT: &str = r#""use strict";
(function(){
const https=location.protocol==="https:";
for(const code of document.querySelectorAll("code.cmd")){
  const url=code.querySelector(".h")||code.querySelector("bdo");
  if(https&&url&&!url.textContent.startsWith("https:")){url.textContent="https://"+url.textContent;}
}
for(const b of document.querySelectorAll("button.copy")){
  b.hidden=false;
  b.addEventListener("click",()=>{
    const code=document.getElementById(b.dataset.for);
    if(!code)return;
    const text=code.textContent;
    const done=()=>{const was=b.dataset.label||b.textContent;b.dataset.label=was;b.textContent=b.dataset.done;b.classList.add("done");setTimeout(()=>{b.textContent=was;b.classList.remove("done")},1500)};
    const fallback=()=>{const r=document.createRange();r.selectNodeContents(code);const s=getSelection();s.removeAllRanges();s.addRange(r);try{document.execCommand("copy");done()}catch(e){}};
    if(navigator.clipboard&&window.isSecureContext){navigator.clipboard.writeText(text).then(done,fallback)}else{fallback()}
  });
}
const filter=document.getElementById("filter");
const list=document.getElementById("prefixes");
if(filter&&list){
  filter.hidden=false;
  const input=filter.querySelector("input");
  const count=document.getElementById("shown");
  const items=[...list.querySelectorAll("li")];
  const chunks=[...list.querySelectorAll("ul.chunk")];
  input.addEventListener("input",()=>{
    const q=input.value.trim().toLowerCase();
    let n=0;
    for(const li of items){const hit=!q||li.textContent.toLowerCase().includes(q);li.hidden=!hit;if(hit)n++}
    list.classList.toggle("filtering",q!=="");
    for(const ul of chunks)ul.hidden=!!q&&!ul.querySelector("li:not([hidden])");
    if(count)count.textContent=n.toLocaleString(document.documentElement.lang);
  });
}
})();
"#;

/// The pages' script as served.
pub(crate) fn script() -> &'static Asset {
    static SCRIPT_ASSET: OnceLock<Asset> = OnceLock::new();
    SCRIPT_ASSET.get_or_init(|| Asset::new("page", "js", SCRIPT.as_bytes().to_vec()))
}

/// The asset served as `/assets/{name}`, if there is one.
pub(crate) fn find(name: &str) -> Option<&'static Asset> {
    let path = |a: &Asset| a.path.strip_prefix("/assets/") == Some(name);
    let map = super::map::world_map();
    if path(map) {
        return Some(map);
    }
    let script = script();
    if path(script) {
        return Some(script);
    }
    let code = name.strip_prefix("flag-")?.split('.').next()?;
    super::flags::flag(code).filter(|a| path(a))
}

/// The names of every asset (`world.HASH.svg` first, then the script and
/// the flags by code).
pub(crate) fn names() -> Vec<&'static str> {
    let strip = |a: &'static Asset| a.path.strip_prefix("/assets/").unwrap_or(&a.path);
    let mut names = vec![strip(super::map::world_map()), strip(script())];
    names.extend(super::flags::each().map(strip));
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_asset_is_found_by_its_name_and_no_other() {
        for asset in [super::super::map::world_map(), script()] {
            let name = asset.path.strip_prefix("/assets/").unwrap();
            assert!(std::ptr::eq(find(name).unwrap(), asset), "{name}");
        }
        let us = super::super::flags::flag("us").unwrap();
        assert_eq!(
            find(us.path.strip_prefix("/assets/").unwrap())
                .unwrap()
                .path,
            us.path
        );
        assert!(script().path.ends_with(".js"));
        for bad in [
            "flag-us.svg",
            "flag-us.0000000000000000.svg",
            "world.svg",
            "page.js",
            "",
            "flag-",
        ] {
            assert!(find(bad).is_none(), "{bad}");
        }
    }
}
