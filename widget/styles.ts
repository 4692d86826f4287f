/**
 * The widget's stylesheet, applied inside its shadow root as a constructed
 * stylesheet (not a <style> element), so a strict style-src CSP allows it.
 *
 * Page rules never match inside the shadow tree; what could still reach in is
 * inheritance through the host and rules aimed at the host element itself.
 * `all: initial` on :host cuts inheritance, and the host's own display rules
 * are `!important`: in the cascade an important rule from the shadow context
 * beats an important rule from the page.
 *
 * A launcher floats in a fixed dock; the element itself, at the end of the
 * page, keeps the launcher's height and margins (1.5em + 64px: 88px) as room
 * (`data-docked`), so the page's last content scrolls clear of the launcher
 * rather than under it. `reserve="none"` gives that room back.
 *
 * Theming is through custom properties (they do pass the boundary, on purpose):
 * --sillage-accent, --sillage-accent-text, --sillage-radius, --sillage-font.
 */
export const CSS = `
:host{all:initial!important;display:block!important;font-family:var(--sillage-font,system-ui,-apple-system,"Segoe UI","Noto Sans Arabic",Tahoma,sans-serif)!important;font-size:16px!important;line-height:1.5!important;color:#1f1b16!important;visibility:visible!important;opacity:1!important}
:host([hidden]){display:none!important}
:host([data-docked]){block-size:calc(1.5em + 64px)!important}
:host([data-docked][reserve=none]),:host([data-docked][data-reserve=none]){block-size:0!important}
.dock{position:fixed;inset-block-end:20px;inset-inline-end:20px;z-index:2147483000}
:host([data-position=start]) .dock{inset-inline-end:auto;inset-inline-start:20px}
*,*::before,*::after{box-sizing:border-box}
[hidden]{display:none!important}
.root{--a:var(--sillage-accent,#7a4a2b);--at:var(--sillage-accent-text,#fff);--r:var(--sillage-radius,14px);font:inherit;color:inherit}
button,input{font:inherit;color:inherit}
button{cursor:pointer}
:focus-visible{outline:3px solid var(--a);outline-offset:2px}
.launcher{display:inline-flex;align-items:center;gap:8px;border:0;border-radius:999px;padding:12px 20px;background:var(--a);color:var(--at);font-weight:600;box-shadow:0 6px 20px rgba(0,0,0,.22)}
.launcher svg{width:20px;height:20px}
.panel{background:#fff;border-radius:var(--r);box-shadow:0 10px 40px rgba(0,0,0,.25);display:flex;flex-direction:column;max-height:100%;overflow:hidden}
.modal{position:fixed;inset:0;z-index:2147483001;display:flex;align-items:flex-end;justify-content:center;background:rgba(20,16,12,.45)}
.modal .panel{width:100%;max-width:460px;height:min(92vh,760px);border-end-start-radius:0;border-end-end-radius:0}
@media (min-width:640px){.modal{align-items:center}.modal .panel{border-radius:var(--r)}}
.mode-inline .panel{box-shadow:0 1px 4px rgba(0,0,0,.12);border:1px solid #e7dfd6}
header{display:flex;align-items:center;justify-content:space-between;gap:8px;padding:14px 18px;border-block-end:1px solid #eee4da}
header h2{margin:0;font-size:18px}
.badge{font-size:12px;background:#fff3cd;color:#5c4400;border-radius:6px;padding:2px 8px}
.icon{border:0;background:transparent;padding:6px;border-radius:8px;line-height:0}
.icon svg{width:22px;height:22px}
.body{padding:18px;overflow:auto;flex:1}
.progress{font-size:13px;color:#5d534a;margin:0 0 6px}
h3{font-size:20px;margin:0 0 4px}
.hint{margin:0 0 14px;color:#5d534a;font-size:14px}
.lead{margin:0 0 18px;font-size:17px}
fieldset{border:0;margin:0;padding:0;min-width:0}
legend{padding:0}
.chips{display:flex;flex-wrap:wrap;gap:8px}
.chip{position:relative}
.chip input{position:absolute;opacity:0;width:1px;height:1px;margin:0}
.chip span{display:inline-block;padding:9px 14px;border:1.5px solid #cdbfb2;border-radius:999px;background:#fff;font-size:15px}
.chip input:checked+span{background:var(--a);border-color:var(--a);color:var(--at)}
.chip input:focus-visible+span{outline:3px solid var(--a);outline-offset:2px}
.chip input:disabled+span{opacity:.45}
ul.chips{list-style:none;margin:12px 0 0;padding:0}
.pick{display:inline-flex;align-items:center;gap:6px;padding:7px 12px;border:1.5px solid var(--a);border-radius:999px;background:#fff;font-size:15px}
.pick svg{width:14px;height:14px}
.options{list-style:none;margin:6px 0 0;padding:4px;border:1.5px solid #cdbfb2;border-radius:10px;max-height:260px;overflow:auto}
.options li{display:grid;padding:8px 10px;border-radius:8px;cursor:pointer}
.options li:hover,.options [aria-selected=true]{background:#f4ede6}
.options [aria-selected=true]{outline:2px solid var(--a);outline-offset:-2px}
.actions{display:flex;flex-wrap:wrap;gap:10px;justify-content:space-between;padding:14px 18px;border-block-start:1px solid #eee4da}
.actions .secondary+.secondary{margin-inline-start:auto}
.primary{border:0;border-radius:10px;padding:11px 20px;background:var(--a);color:var(--at);font-weight:600}
.primary:disabled{opacity:.5;cursor:default}
.secondary{border:1.5px solid #cdbfb2;border-radius:10px;padding:10px 16px;background:#fff}
.status{padding:30px 0;text-align:center;color:#5d534a}
.cards{list-style:none;margin:0;padding:0;display:grid;gap:12px;grid-template-columns:repeat(auto-fill,minmax(min(100%,300px),1fr))}
.card{display:grid;grid-template-columns:84px minmax(0,1fr);grid-template-rows:subgrid;grid-row:span 9;gap:0 12px;align-content:start;padding:12px;border:1px solid #eee4da;border-radius:12px}
.card>*{grid-column:2;margin:0;align-self:start}
.card>.thumb{grid-column:1;grid-row:1/-1;align-self:start}
.card>h4{grid-row:1;font-size:16px}
.house{margin:0;color:#5d534a;font-size:14px}
.card>.house{grid-row:2}
.card>.like{grid-row:3;margin-block-start:4px;font-size:14px;font-weight:600}
.card>.basis{grid-row:4;font-size:13px;color:#5d534a}
.card>.tags{grid-row:5}
.card>.price{grid-row:6;margin-block-end:6px;font-weight:600}
.card>.accords{grid-row:7;margin-block-end:6px;font-size:13px;color:#5d534a}
.card>.heat{grid-row:8;margin-block-end:6px;font-size:13px}
.card>.link{grid-row:9;justify-self:start}
.thumb{width:84px;height:84px;border-radius:10px;object-fit:contain;background:#f7f2ec}
.tile{display:flex;align-items:center;justify-content:center;font-size:12px;line-height:1.2;font-weight:700;overflow:hidden;overflow-wrap:anywhere;text-align:center;padding:4px;color:var(--at);background:linear-gradient(135deg,var(--a),#c89b6d)}
.tags{display:flex;flex-wrap:wrap;align-items:center;gap:4px 6px;margin-block:6px}
.tag{font-size:12px;font-weight:600;line-height:1.6;border-radius:6px;padding:1px 6px;white-space:nowrap}
.tag.strong,.tag.score{color:#1d5c2e;background:#e6f4ea}.tag.good{color:#1f4e79;background:#e7f0fa}.tag.weak{color:#5c4400;background:#fff3cd}.tag.score{font-weight:700}
.tag.wearer,.tag.kind{color:#4a3b2f;background:#f1e9e1}
.link{color:var(--a);font-weight:600;text-decoration:underline}
section{margin-block-start:22px}
section h3{font-size:17px}
.layering ul{list-style:none;margin:0;padding:0;display:grid;gap:8px}
.layering ol{margin:0;padding:10px 12px;padding-inline-start:30px;border:1px solid #eee4da;border-radius:12px}
.chips+.chips{margin-block-start:12px}
dl{margin:0;display:grid;grid-template-columns:auto 1fr;gap:4px 12px;font-size:14px}
dt{color:#5d534a}
dd{margin:0}
form{display:grid;gap:10px}
label.field{display:grid;gap:4px;font-size:14px}
input[type=text],input[type=email],input[type=tel]{border:1.5px solid #cdbfb2;border-radius:10px;padding:10px 12px;background:#fff;width:100%}
.consent{display:flex;gap:8px;align-items:flex-start;font-size:13px}
.consent input{margin-block-start:3px;width:18px;height:18px;flex:none}
.note{font-size:14px;margin:0}
fieldset .note{margin-block-start:8px}
footer{padding:10px 18px;border-block-start:1px solid #eee4da;display:flex;justify-content:center}
.powered{display:inline-flex;align-items:center;gap:6px;color:#5d534a;font-size:12px;text-decoration:none}
.powered svg{width:16px;height:16px}
.wait{padding:24px 0}
.wait .status{padding:12px 0 0}
.bar{height:6px;border-radius:3px;background:#eee4da;overflow:hidden;position:relative}
.bar::after{content:"";position:absolute;inset-block:0;left:0;width:40%;border-radius:3px;background:var(--a)}
.debug{background:#fff;color:#1f1b16;border:2px dashed #7a4a2b;border-radius:10px;padding:10px 12px;margin:0 0 10px;font-size:13px;max-width:380px;overflow-wrap:anywhere}
.debug p{margin:0 0 6px}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (prefers-reduced-motion:no-preference){.launcher{transition:transform .15s}.launcher:hover{transform:translateY(-2px)}.bar::after{animation:sillage-bar 1.4s ease-in-out infinite}}
@keyframes sillage-bar{from{transform:translateX(-100%)}to{transform:translateX(250%)}}
`;
