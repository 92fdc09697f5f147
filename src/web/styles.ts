/**
 * The pages' one stylesheet, inline in every page and allowed by its hash in the CSP (inline
 * style attributes are not, so colours are classes). Light and dark themes are the same rules over
 * CSS variables, the dark ones chosen by `prefers-color-scheme`; narrow screens (800 px and less:
 * the menu; 600 px and less: stacked tables) by media queries (docs/pages.md, "Navigation and layout").
 */
export const CSS = `
:root{color-scheme:light dark;--ink:#1d2430;--muted:#566071;--line:#dde2ea;--accent:#2f6f5e;--accent-ink:#fff;--bad:#a12a2a;--bg:#f6f7f9;--surface:#fff;--field:#fff;--field-line:#8a94a3;--code:#eef1f5;--notice:#eaf5f1;--notice-line:#b6dccd;--error-bg:#fbeeee;--error-line:#e6bcbc;--today:#e3f1eb;--h1:#e4f1ec;--h2:#b9ddd0;--h3:#8cc8b4;--h4:#2f7a62;--h5:#1f5e4b;--h-ink:#1d2430;--h-ink-dark:#fff;--neg:#b0562f}
@media (prefers-color-scheme: dark){:root{--ink:#e6e9ee;--muted:#a9b2bf;--line:#333b47;--accent:#58b096;--accent-ink:#0c1512;--bad:#ff8f8f;--bg:#12161c;--surface:#1b2129;--field:#10141a;--field-line:#6b7686;--code:#252c36;--notice:#17302a;--notice-line:#2f5e50;--error-bg:#3a1c1c;--error-line:#6e3535;--today:#1f3a31;--h1:#1c3a31;--h2:#245444;--h3:#2b6b56;--h4:#5fb597;--h5:#a5e4cd;--h-ink:#e6e9ee;--h-ink-dark:#0c1512;--neg:#e08a62}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg);overflow-wrap:break-word}
a{color:var(--accent)}
header{background:var(--surface);border-bottom:1px solid var(--line)}
header .bar{max-width:1240px;margin:0 auto;padding:.6rem 1rem;display:flex;gap:.5rem 1rem;align-items:center;flex-wrap:wrap}
header .brand{font-weight:700;color:var(--accent);text-decoration:none;margin-right:auto}
header nav{display:flex;gap:.2rem .8rem;font-size:.95rem;flex-wrap:wrap;align-items:center}
header nav a{color:var(--ink);text-decoration:none;padding:.2rem 0}
header nav a:hover{text-decoration:underline}
header form{margin:0}
details.menu{display:none}
details.menu summary{cursor:pointer;padding:.35rem .8rem;border:1px solid var(--field-line);border-radius:6px;list-style:none}
details.menu summary::-webkit-details-marker{display:none}
details.menu[open] nav{flex-direction:column;align-items:flex-start;padding:.6rem 0 .2rem}
details.menu[open] nav a{padding:.45rem 0}
@media (max-width:800px){nav.wide{display:none}details.menu{display:block}details.menu[open]{flex-basis:100%}}
main{max-width:960px;margin:1.5rem auto;padding:0 1rem}
h1{font-size:1.6rem;margin:.2rem 0 1rem}
h2{font-size:1.2rem;margin:1.5rem 0 .5rem}
.card h2:first-child{margin-top:0}
h3{font-size:1rem;margin:1rem 0 .3rem}
.card{background:var(--surface);border:1px solid var(--line);border-radius:10px;padding:1.2rem 1.4rem;margin:0 0 1rem;min-width:0}
.narrow{max-width:440px;margin-left:auto;margin-right:auto}
label{display:block;font-weight:600;margin:.8rem 0 .25rem}
label.check{font-weight:400;display:flex;gap:.5rem;align-items:center;margin:.3rem 0}
td label.check{margin:0}
input[type=text],input[type=password],input[type=url],input[type=date],select,textarea{width:100%;max-width:100%;padding:.5rem .6rem;border:1px solid var(--field-line);border-radius:6px;font:inherit;color:inherit;background:var(--field)}
textarea{min-height:5rem}
button,.button{display:inline-block;padding:.5rem 1rem;border-radius:6px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-ink);font:inherit;cursor:pointer;text-decoration:none}
button.secondary{background:var(--surface);color:var(--ink);border-color:var(--field-line)}
button.danger{background:var(--bad);border-color:var(--bad);color:var(--bg)}
button.link{background:none;border:none;color:var(--ink);padding:0}
.actions{display:flex;gap:.6rem;flex-wrap:wrap;margin-top:1rem}
.muted{color:var(--muted)}
.notice{background:var(--notice);border:1px solid var(--notice-line);border-radius:8px;padding:.7rem 1rem;margin:0 0 1rem}
.error{background:var(--error-bg);border:1px solid var(--error-line);color:var(--bad);border-radius:8px;padding:.7rem 1rem;margin:0 0 1rem}
.secret{font-family:ui-monospace,Menlo,Consolas,monospace;background:var(--code);border:1px dashed var(--field-line);border-radius:6px;padding:.4rem .6rem;word-break:break-all;display:block}
code{font-family:ui-monospace,Menlo,Consolas,monospace;background:var(--code);border-radius:4px;padding:0 .25rem;word-break:break-all}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.45rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.85rem;color:var(--muted);font-weight:600}
ul.scopes{padding-left:1.2rem}
ul.scopes li{margin:.2rem 0}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(250px,100%),1fr));gap:0 1rem}
.inline{display:inline}
.scroll{overflow-x:auto;max-width:100%}
form.daypicker{display:flex;gap:.5rem .8rem;align-items:center;flex-wrap:wrap}
form.daypicker input[type=date]{width:auto}
form.daypicker .goto{display:flex;gap:.5rem;align-items:center;margin-left:auto}
.inline-label{display:inline;margin:0;font-weight:400}
@media (max-width:600px){
main{padding:0 .6rem;margin-top:1rem}
.card{padding:1rem .8rem}
main table:not(.calendar):not(.weekdays):not(.keep) thead{display:none}
main table:not(.calendar):not(.weekdays):not(.keep) tr{display:block;border-bottom:1px solid var(--line);padding:.4rem 0}
main table:not(.calendar):not(.weekdays):not(.keep) td,main table:not(.calendar):not(.weekdays):not(.keep) tbody th{display:block;border:0;padding:.2rem 0}
form.daypicker .goto{margin-left:0}
}
ul.attrs{list-style:none;margin:0;padding:0}
li.attr{display:grid;grid-template-columns:minmax(0,1fr) 120px minmax(5.5rem,auto);gap:.3rem .8rem;align-items:center;padding:.6rem 0;border-bottom:1px solid var(--line)}
li.attr:last-child{border-bottom:0}
li.attr .value{font-weight:600;text-align:right;font-variant-numeric:tabular-nums}
li.attr .entry{grid-column:1/-1}
li.attr .entry label:not(.check):not(.choice){font-weight:400;margin:0 0 .2rem;color:var(--muted);font-size:.9rem}
li.attr .from{font-size:.85rem}
@media (max-width:480px){li.attr{grid-template-columns:minmax(0,1fr) auto}li.attr svg.spark{grid-column:1/-1;grid-row:2;width:100%;height:28px}}
.with-unit{display:flex;gap:.5rem;align-items:center;max-width:20rem}
.with-unit .unit{color:var(--muted);white-space:nowrap}
.quick h2{margin:0 0 .4rem}
.quick fieldset{border:0;padding:0;margin:0 0 .5rem;min-width:0}
.quick legend{padding:0;margin:0 0 .25rem;font-weight:600}
.quick .nine{display:grid;grid-template-columns:repeat(9,minmax(0,1fr));gap:.25rem}
.quick .nine label.choice{margin:0}
.quick .nine label.choice span{min-width:0;width:100%;padding:.45rem 0}
.quick label.toggle span{min-width:0;border-radius:999px;padding:.35rem .8rem}
.quick-numbers{display:flex;flex-wrap:wrap;gap:.4rem .8rem;margin:0 0 .5rem}
.quick-number{display:flex;flex-direction:column;flex:1 1 8rem;min-width:0}
.quick-number label{font-size:.9rem;font-weight:400;margin:0}
.quick-save{width:100%}
.weekdays-nav{display:flex;flex-wrap:wrap;gap:.2rem .6rem;margin:0 0 .5rem}
.weekdays-nav a[aria-current]{font-weight:700}
ul.weeklines{list-style:none;margin:0;padding:0}
li.weekline{display:grid;grid-template-columns:minmax(0,1fr) 84px;gap:.1rem .8rem;align-items:center;padding:.4rem 0;border-bottom:1px solid var(--line)}
li.weekline .figures{grid-column:1/-1;font-size:.9rem}
svg.weekspark{color:var(--accent)}
fieldset.choices{border:0;padding:0;margin:0;min-width:0}
fieldset.choices legend{padding:0;margin:0 0 .3rem;color:var(--muted);font-size:.9rem}
fieldset.column{border:1px solid var(--line);border-radius:8px;padding:.6rem .8rem;margin:0 0 .8rem;min-width:0}
fieldset.column legend{font-weight:600;padding:0 .3rem;overflow-wrap:anywhere}
fieldset.column select{max-width:100%}
fieldset.column:not(:has(option[value="new"]:checked)) .new-only{display:none}
progress{width:100%;max-width:30rem;height:1rem;accent-color:var(--accent)}
ul.problems li{overflow-wrap:anywhere}
label.choice{display:inline-flex;margin:0 .15rem .3rem 0;font-weight:400}
label.choice input{position:absolute;opacity:0;width:1px;height:1px}
label.choice span{display:inline-block;min-width:2.4rem;text-align:center;padding:.4rem .5rem;border:1px solid var(--field-line);border-radius:6px;cursor:pointer;background:var(--field)}
label.choice input:checked+span{background:var(--accent);color:var(--accent-ink);border-color:var(--accent)}
label.choice input:focus-visible+span{outline:2px solid var(--accent);outline-offset:2px}
.savebar{position:sticky;bottom:0;background:var(--surface);border:1px solid var(--line);border-radius:10px;padding:.7rem 1rem;margin:0 0 1rem;display:flex;gap:.5rem 1rem;align-items:center;flex-wrap:wrap;box-shadow:0 -2px 8px rgba(0,0,0,.08)}
svg{max-width:100%}
svg.chart{width:100%;height:auto;display:block}
svg .axis text{font-size:12px;fill:var(--muted)}
@media (max-width:600px){svg.chart .axis text{font-size:24px}svg.chart.scatter .axis text{font-size:20px}}
svg .axis line.grid{stroke:var(--line)}
svg .line{fill:none;stroke:var(--accent);stroke-width:2}
svg .point{fill:var(--accent)}
svg .bar{fill:var(--accent)}
svg .mark{stroke-width:2}svg .mark0{stroke:var(--ink);stroke-dasharray:8 5}svg .mark1{stroke:var(--neg);stroke-width:3;stroke-dasharray:2 4}
svg .band{fill:var(--accent);opacity:.2}svg .range{stroke:var(--ink);stroke-width:2;opacity:.45}
svg .tick{fill:var(--accent)}svg .untick{fill:var(--field-line)}
.key-line{display:inline-block;width:2rem;height:0;border-top:2px dashed var(--ink);vertical-align:middle;margin-left:.6rem}.key-line.mark1{border-top:3px dotted var(--neg)}
.chart-label{font-weight:600;margin:.8rem 0 .2rem}
svg.chart.scatter{max-width:34rem;margin:0 auto}
.second .line{stroke:var(--neg)}
.second .point,.second .bar,.second .tick{fill:var(--neg)}.second .band{fill:var(--neg)}.second .range{stroke:var(--neg)}
svg.spark{width:120px;height:28px}
svg.spark .line{stroke-width:1.5}
svg.rbar{width:120px;height:14px;vertical-align:middle}
svg.rbar .track{fill:var(--line)}
svg.rbar .pos{fill:var(--accent)}
svg.rbar .neg{fill:var(--neg)}
svg.rbar line{stroke:var(--ink)}
.tabs{display:flex;gap:1rem;flex-wrap:wrap;margin:0 0 .6rem}
table.calendar{table-layout:fixed;max-width:28rem;border-collapse:separate;border-spacing:3px}
table.calendar th{text-align:center;padding:.2rem}
table.calendar td{text-align:center;padding:0;border:2px solid transparent;border-radius:4px;height:2.6rem}
table.calendar td a{display:block;line-height:2.4rem;text-decoration:none;color:inherit}
table.calendar td.empty{border:2px dashed var(--field-line)}
table.calendar td.future{color:var(--muted)}
.heat1{background:var(--h1);color:var(--h-ink)}.heat2{background:var(--h2);color:var(--h-ink)}.heat3{background:var(--h3);color:var(--h-ink)}.heat4{background:var(--h4);color:var(--h-ink-dark)}.heat5{background:var(--h5);color:var(--h-ink-dark)}
td.heat1 a,td.heat2 a,td.heat3 a{color:var(--h-ink)}td.heat4 a,td.heat5 a{color:var(--h-ink-dark)}
.key{display:inline-block;width:1rem;height:1rem;vertical-align:middle;border-radius:3px}
.key.empty{border:2px dashed var(--field-line)}
table.weekdays{font-size:.9rem}table.weekdays th,table.weekdays td{padding:.35rem .3rem}table.weekdays td{text-align:center;white-space:nowrap}table.weekdays tbody th{min-width:6rem}
.scroll:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
table.weekdays tbody th,table.weekdays thead th:first-child{position:sticky;left:0;background:var(--surface);z-index:1}
.heatkey{white-space:nowrap}.heatkey .key{margin:0 1px}
ul.patterns{list-style:none;padding:0;margin:0}
li.correlation{padding:.6rem 0;border-bottom:1px solid var(--line)}
li.correlation .measures{display:flex;flex-wrap:wrap;gap:.2rem 1rem;align-items:center;font-size:.9rem;margin-top:.2rem}
p.why{margin:.3rem 0 0;font-size:.9rem}
.stars{color:#a86b00}
@media (prefers-color-scheme: dark){.stars{color:#f0b429}}
details.numbers{margin-top:.8rem}
details.numbers summary{cursor:pointer}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.hero{padding:1.6rem 1.4rem}
.hero p{font-size:1.1rem}
ul.sessions{list-style:none;padding:0;margin:0}
li.session{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:center;gap:.3rem 1rem;padding:.6rem 0;border-bottom:1px solid var(--line)}
li.session p{margin:0}
`;
