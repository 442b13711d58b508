/** The report's stylesheet (inline: the page fetches nothing). Laptop and phone widths, light and dark. */
export const reportCss = `
:root{--fg:#1b1f24;--muted:#57606a;--bg:#fff;--panel:#f6f8fa;--line:#d0d7de;--accent:#0b5cad;--ok:#1a7f37;--bad:#c62828;--warn:#9a6700;--neutral:#3d5a80;
--c-unknown:#eceff1;--c-auto:#c8e6c9;--c-frontier:#81c784;--c-edge:#b0bec5;--c-manual:#90a4ae;--c-blocked:#e53935;--c-unblocked:#fff176;
--c-cache:#64b5f6;--c-policy:#7986cb;--c-generated:#9575cd;--c-rule:#4db6ac;--c-syntax:#4dd0e1;--c-learnt:#a1887f;--c-model:#ba68c8;--c-person:#ffb74d;--c-failed:#d32f2f;--add:#e6ffec;--del:#ffebe9;--hunk:#ddf4ff}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9da7b3;--bg:#0d1117;--panel:#161b22;--line:#30363d;--accent:#58a6ff;--ok:#3fb950;--bad:#ff7b72;--warn:#d29922;--neutral:#8fb3d9;
--c-unknown:#21262d;--c-auto:#2e5e34;--c-frontier:#3f8f4a;--c-edge:#4b5a63;--c-manual:#607d8b;--add:#12361f;--del:#4a1619;--hunk:#0c2d4d}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--bg);padding:4px 8px;z-index:9}
header.top{padding:16px clamp(12px,3vw,32px);border-bottom:1px solid var(--line);background:var(--panel)}
header.top h1{margin:0 0 4px;font-size:1.35rem;overflow-wrap:anywhere}
nav.toc{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.9rem;margin-top:6px}
main{padding:0 clamp(12px,3vw,32px) 48px;max-width:1400px;margin:0 auto}
section{margin-top:28px}
h2{font-size:1.15rem;border-bottom:1px solid var(--line);padding-bottom:4px}
h3{font-size:1rem;margin:18px 0 6px;overflow-wrap:anywhere}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
pre{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:8px 10px;overflow:auto;max-height:32rem;margin:6px 0;white-space:pre}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:10px;margin-top:14px}
.card{background:var(--panel);border:1px solid var(--line);border-radius:8px;padding:8px 12px;min-width:0}
.card dt{font-size:.78rem;color:var(--muted);text-transform:uppercase;letter-spacing:.03em}
.card dd{margin:2px 0 0;font-weight:600;overflow-wrap:anywhere}
.badge{display:inline-block;padding:1px 8px;border-radius:999px;font-size:.8rem;font-weight:600;border:1px solid currentColor}
.s-done,.ok{color:var(--ok)}.s-failed,.bad{color:var(--bad)}.s-needs_person,.s-stopped,.s-running,.warn{color:var(--warn)}
.muted{color:var(--muted)}.neutral{color:var(--neutral)}
.card-wide{grid-column:1/-1}
.table-wrap{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;width:100%;font-size:.9rem}
th,td{border-bottom:1px solid var(--line);padding:5px 8px;text-align:left;vertical-align:top}
th{font-weight:600;background:var(--panel)}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
.grid-tools{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:6px 0}
button{font:inherit;padding:4px 10px;border:1px solid var(--line);border-radius:6px;background:var(--panel);color:var(--fg);cursor:pointer;min-height:32px}
.grid-view{position:relative;border:1px solid var(--line);border-radius:6px;overflow:auto;max-height:72vh;background:var(--bg);touch-action:none}
.grid-view svg{display:block}
.grid-view canvas{display:block;width:100%;cursor:crosshair}
.grid-view rect.k0{fill:var(--c-unknown)}.grid-view rect.k1{fill:var(--c-manual)}.grid-view rect.k2{fill:var(--c-auto)}
.grid-view rect.k3{fill:var(--c-blocked)}.grid-view rect.k4{fill:var(--c-unblocked)}.grid-view rect.kedge{fill:var(--c-edge)}
.grid-view rect.m-cache{fill:var(--c-cache)}.grid-view rect.m-policy{fill:var(--c-policy)}.grid-view rect.m-generated{fill:var(--c-generated)}.grid-view rect.m-rule{fill:var(--c-rule)}.grid-view rect.m-syntax{fill:var(--c-syntax)}.grid-view rect.m-learnt{fill:var(--c-learnt)}.grid-view rect.m-model{fill:var(--c-model)}.grid-view rect.m-person{fill:var(--c-person)}
.grid-view rect{stroke:var(--bg);stroke-width:1}
.grid-view path.frontier{stroke:var(--fg);stroke-width:2;fill:none;pointer-events:none}
.grid-view rect.failed{stroke:var(--c-failed);stroke-width:3}
.grid-view text{font:bold 9px ui-monospace,monospace;text-anchor:middle;dominant-baseline:central;pointer-events:none;fill:#000}
.grid-view #grid-cursor{fill:none;stroke:var(--accent);stroke-width:3;pointer-events:none}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.85rem;margin:6px 0;padding:0;list-style:none}
.legend li{display:flex;align-items:center;gap:5px}
.sw{display:inline-block;width:14px;height:14px;border:1px solid var(--line);border-radius:2px;text-align:center;font:bold 10px/12px monospace;color:#000}
.tip{position:fixed;z-index:20;max-width:min(440px,92vw);background:var(--bg);color:var(--fg);border:1px solid var(--line);border-radius:6px;box-shadow:0 4px 14px rgba(0,0,0,.2);padding:8px 10px;font-size:.85rem;pointer-events:none;overflow-wrap:anywhere}
.tip[hidden]{display:none}
.tip b{display:block;margin-bottom:2px}
ol.timeline{list-style:none;padding:0;margin:0;border-left:3px solid var(--line)}
ol.timeline li{position:relative;margin:0 0 12px;padding-left:16px}
ol.timeline li::before{content:"";position:absolute;left:-8px;top:.45em;width:11px;height:11px;border-radius:50%;background:var(--line)}
ol.timeline li.t-strategy::before,ol.timeline li.t-recovery::before{background:var(--accent)}
ol.timeline li.t-failure::before,ol.timeline li.t-blame::before{background:var(--bad)}
ol.timeline li.t-finalized::before{background:var(--ok)}
.t-head{font-weight:600;overflow-wrap:anywhere}.t-why{margin:2px 0 0;white-space:pre-wrap;overflow-wrap:anywhere}
details.conflict{border:1px solid var(--line);border-radius:8px;margin:10px 0;padding:0 12px;background:var(--bg)}
details.conflict>summary{cursor:pointer;padding:8px 0;font-weight:600;overflow-wrap:anywhere}
details.conflict[open]>summary{border-bottom:1px solid var(--line);margin-bottom:8px}
details>summary{cursor:pointer}
.sides{display:grid;grid-template-columns:repeat(3,minmax(0,1fr));gap:8px}.sides>div{min-width:0}
.sides h4{margin:4px 0 0;font-size:.8rem;color:var(--muted);font-weight:600;overflow-wrap:anywhere}
.diff .d-add{background:var(--add);display:block}.diff .d-del{background:var(--del);display:block}
.diff .d-hunk{background:var(--hunk);display:block;color:var(--muted)}.diff .d-meta{font-weight:600;display:block}
.diff .d-ctx{display:block}
.rung{font-weight:700}.rung-cache{color:#1565c0}.rung-policy{color:#3949ab}.rung-generated{color:#5e35b1}.rung-rule{color:#00796b}.rung-syntax{color:#00838f}.rung-learnt{color:#5d4037}.rung-model{color:#7b1fa2}.rung-person{color:#e65100}
@media (prefers-color-scheme:dark){.rung-cache{color:#64b5f6}.rung-policy{color:#7986cb}.rung-generated{color:#9575cd}.rung-rule{color:#4db6ac}.rung-syntax{color:#4dd0e1}.rung-learnt{color:#a1887f}.rung-model{color:#ce93d8}.rung-person{color:#ffb74d}}
.live{font-size:.85rem;margin-top:4px}
@media (max-width:720px){body{font-size:14px}.sides{grid-template-columns:minmax(0,1fr)}.cards{grid-template-columns:repeat(2,minmax(0,1fr))}th,td{padding:4px 6px}}
`;
