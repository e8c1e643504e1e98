// The console's one stylesheet, served at /assets/console.css from the binary itself: CSP
// `default-src 'self'` refuses inline styles, and the console must work with no internet.
export const CONSOLE_CSS = `
:root { color-scheme: light; --line: #d9dce1; --muted: #5b6470; --accent: #1f5fbf; --bad: #b42318; --good: #067647; --warn: #b54708; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Liberation Sans", sans-serif; color: #1d2430; background: #f6f7f9; }
header { display: flex; gap: 24px; align-items: center; padding: 10px 24px; background: #1d2430; color: #fff; }
header .brand { font-weight: 600; }
header nav { display: flex; gap: 16px; flex: 1; }
header a { color: #dfe6f3; text-decoration: none; }
header a.current { color: #fff; font-weight: 600; }
header form { margin: 0; }
main { padding: 20px 24px; max-width: 1400px; }
h1 { font-size: 20px; margin: 0 0 16px; }
h2 { font-size: 16px; margin: 24px 0 8px; }
a { color: var(--accent); }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid var(--line); }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef0f3; font-weight: 600; white-space: nowrap; }
td { overflow-wrap: anywhere; }
td.mono, .mono { font-family: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", monospace; font-size: 13px; }
pre { background: #fff; border: 1px solid var(--line); padding: 10px; white-space: pre-wrap; overflow-wrap: anywhere; }
form.filters { display: flex; flex-wrap: wrap; gap: 10px; align-items: end; margin-bottom: 16px; }
label { display: flex; flex-direction: column; gap: 2px; font-size: 12px; color: var(--muted); }
input, select, button { font: inherit; padding: 5px 8px; border: 1px solid #b8bec8; border-radius: 4px; background: #fff; }
button { background: var(--accent); color: #fff; border-color: var(--accent); cursor: pointer; white-space: nowrap; }
select { height: 32px; }
form.filters > a { padding: 6px 0; }
a.button { display: inline-block; padding: 5px 10px; border: 1px solid var(--accent); border-radius: 4px; background: #fff; text-decoration: none; }
ol.progress { color: var(--muted); margin: 0 0 16px; }
table.problems { width: auto; min-width: 480px; }
button.secondary { background: #fff; color: var(--accent); }
header button { background: transparent; border-color: #6b7585; color: #fff; }
.status-accepted, .status-delivered { color: var(--good); font-weight: 600; }
.status-rejected, .status-dead { color: var(--bad); font-weight: 600; }
.status-pending, .status-held { color: var(--warn); font-weight: 600; }
/* A one-word status is never split: overflow-wrap: anywhere above would break "enabled" in a wide table. */
td[class^="status-"] { overflow-wrap: normal; }
.notice { padding: 8px 12px; border: 1px solid #9fd3b3; background: #ecfdf3; margin-bottom: 16px; }
.problem { padding: 8px 12px; border: 1px solid #f4a19a; background: #fef3f2; margin-bottom: 16px; }
.muted { color: var(--muted); }
.pager { display: flex; gap: 16px; margin-top: 12px; }
.actions { display: flex; flex-wrap: wrap; gap: 16px; align-items: end; }
.actions form { display: flex; gap: 8px; align-items: end; background: #fff; border: 1px solid var(--line); padding: 10px; }
ol.timeline { list-style: none; padding: 0; margin: 0; background: #fff; border: 1px solid var(--line); }
ol.timeline li { padding: 8px 12px; border-bottom: 1px solid var(--line); }
ol.timeline time { display: inline-block; min-width: 190px; color: var(--muted); font-family: ui-monospace, monospace; font-size: 13px; }
form.inline { display: inline-block; margin: 0 6px 0 0; }
form.inline button { padding: 2px 8px; font-size: 13px; }
.tabs { display: flex; gap: 12px; margin-bottom: 12px; }
.tabs a.current { font-weight: 600; color: #1d2430; text-decoration: none; }
dl.secrets { display: grid; grid-template-columns: max-content 1fr; gap: 6px 16px; background: #fff; border: 1px solid var(--line); padding: 12px; }
dl.secrets dd { margin: 0; font-family: ui-monospace, monospace; }
form.editor { display: flex; flex-direction: column; gap: 8px; align-items: flex-start; }
form.editor label { width: 100%; }
form.editor textarea { width: 100%; font-size: 13px; padding: 8px; border: 1px solid #b8bec8; border-radius: 4px; }
table.narrow { width: auto; min-width: 360px; }
.cards { display: flex; flex-wrap: wrap; gap: 16px; }
.card { background: #fff; border: 1px solid var(--line); padding: 12px 16px; min-width: 360px; }
.card h2 { margin-top: 0; }
svg.bars text { font-size: 12px; fill: #1d2430; }
.login { max-width: 340px; margin: 80px auto; background: #fff; border: 1px solid var(--line); padding: 24px; display: flex; flex-direction: column; gap: 12px; }
`;
