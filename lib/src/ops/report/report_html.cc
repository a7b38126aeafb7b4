// ops/report/report_html.cc - ckpt-report(1)'s page: one file, Chart.js and the data inside.
//
// The page draws every chart and table from the embedded `ckpt.report/1` document, so what it
// shows is exactly what `--json` prints. After drawing it checks that each canvas has pixels
// and records what it drew in attributes of a hidden element (#status: data-state "ok" or
// "error", the charts, the empty ones, the page's width) and of each canvas (its chart type,
// the y axis' minimum, for a skew chart its tallest bar), which the browser test reads; the
// reader sees no text of it, only a message if drawing failed. Animations are off so drawing is
// synchronous.
#include <string>

#include "ckpt/report.h"

namespace ckpt {
namespace {

// JSON inside <script>: "</script" or "<!--" in a string could end or bend the element; '<'
// occurs in JSON only inside strings, where "\u003c" is the same character.
std::string script_safe(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '<') out += "\\u003c";
    else out += c;
  }
  return out;
}

constexpr const char* kStyle = R"(
body{font-family:sans-serif;margin:1.5em;color:#222}h1,p,li{overflow-wrap:anywhere}
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:2em;border-bottom:1px solid #ccc}
.row{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}
.chart{width:640px;height:320px;position:relative}
table{border-collapse:collapse;font-size:.85em;max-width:100%}td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}
td.w{overflow-wrap:anywhere}
th{background:#f4f4f4}td.l{text-align:left}.hot{background:#fdd}.advice{border-left:4px solid #47a;padding-left:.8em;margin:1em 0}
code{background:#f4f4f4;padding:0 3px}.error{color:#a00;font-weight:bold}
)";

constexpr const char* kScript = R"JS(
(function(){
'use strict';
const D = JSON.parse(document.getElementById('ckpt-data').textContent);
const fail = window.ckptFail;
const charts = [];
const $ = (t, a, p) => { const e = document.createElement(t); if (a) for (const k in a) { if (k === 'text') e.textContent = a[k]; else e.setAttribute(k, a[k]); } if (p) p.appendChild(e); return e; };
const human = b => { if (b === null || b === undefined) return '-'; const u = ['B','KiB','MiB','GiB','TiB']; let i = 0, x = b; while (x >= 1024 && i < u.length - 1) { x /= 1024; ++i; } return i ? x.toFixed(1) + ' ' + u[i] : b + ' B'; };
const opLabel = op => (op.name || op.uid || op.id.slice(0, 8));
const opById = {}; D.operators.forEach(o => opById[o.id] = o);
const section = (title) => { const s = $('section', null, document.getElementById('ckpt-main')); $('h2', {text: title}, s); const r = $('div', {class: 'row'}, s); return r; };
const chart = (parent, name, config) => {
  const box = $('div', {class: 'chart'}, parent);
  const c = $('canvas', {'data-chart': name}, box);
  config.options = Object.assign({animation: false, responsive: true, maintainAspectRatio: false}, config.options || {});
  charts.push({name: name, canvas: c, chart: new Chart(c, config)});
};
const table = (parent, headers, rows) => {
  const t = $('table', null, parent); const h = $('tr', null, $('thead', null, t));
  headers.forEach(x => $('th', {text: x}, h)); const b = $('tbody', null, t);
  rows.forEach(r => { const tr = $('tr', r.cls ? {class: r.cls} : null, b); r.cells.forEach(c => { const td = $('td', c.attrs || null, tr); td.textContent = c.text; }); });
  return t;
};
const num = (v, k) => ({text: human(v), attrs: {'data-k': k, 'data-v': String(v)}});
const txt = v => ({text: v === null || v === undefined ? '' : String(v), attrs: {class: 'l'}});
// A serializer tree may be wider than the page: it wraps after its brackets and commas first.
const wide = v => ({text: String(v || '').replace(/([\[,$])/g, '$1\u200b'), attrs: {class: 'l w'}});

// Summary
document.getElementById('ckpt-summary').textContent = D.snapshot + ': checkpoint ' + D.checkpoint_id + ', ' + D.snapshot_kind + ', ' +
  human(D.state_size) + ' full, ' + human(D.checkpointed_size) + ' incremental, ' + D.file_count + ' files' +
  (D.entry_count !== null ? ', ' + D.entry_count + ' entries' : '') + ' (skew ' + D.skew_method + ')';

// Size per operator and per state
let s = section('Size per operator');
chart(s, 'operator-size', {type: 'bar', data: {labels: D.operators.map(opLabel), datasets: [
  {label: 'full (state_size)', data: D.operators.map(o => o.state_size), backgroundColor: '#4a7ab5'},
  {label: 'incremental (checkpointed_size)', data: D.operators.map(o => o.checkpointed_size), backgroundColor: '#e0a040'}]},
  options: {scales: {y: {beginAtZero: true, ticks: {callback: v => human(v)}}}}});
table(s, ['operator', 'id', 'parallelism', 'max parallelism', 'full', 'incremental', 'files'], D.operators.map(o => ({cells: [
  txt(opLabel(o)), txt(o.id), txt(o.parallelism), txt(o.max_parallelism), num(o.state_size, 'state_size'), num(o.checkpointed_size, 'checkpointed_size'), txt(o.file_count)]})));
const states = []; D.operators.forEach(o => o.states.forEach(st => states.push({op: o, st: st})));
if (states.length) {
  s = section('Size per state');
  if (D.skew_method === 'counted')
    chart(s, 'state-size', {type: 'bar', data: {labels: states.map(x => opLabel(x.op) + ' / ' + x.st.name), datasets: [
      {label: 'bytes of entries', data: states.map(x => x.st.bytes), backgroundColor: '#4a7ab5'}]}, options: {indexAxis: 'y', scales: {x: {beginAtZero: true, ticks: {callback: v => human(v)}}}}});
  table(s, ['operator', 'state', 'kind', 'value type', 'entries', 'bytes'], states.map(x => ({cells: [
    txt(opLabel(x.op)), wide(x.st.name), txt(x.st.kind), wide(x.st.value_type), txt(x.st.entry_count), num(x.st.bytes, 'bytes')]})));
}

// Skew: bytes per key group of each keyed operator, a bar per key group coloured by its subtask;
// a hot key group is red and, being hot, the tallest bar.
D.operators.filter(o => o.key_groups.length).forEach(o => {
  s = section('Skew: ' + opLabel(o) + ' (' + D.skew_method + ')');
  const hot = new Set(o.hot_key_groups);
  const shades = ['#4a7ab5', '#7fa3d0'];
  chart(s, 'skew-key-groups-' + o.id, {type: 'bar', data: {datasets: [{label: 'bytes per key group',
    data: o.key_groups.map(k => ({x: k.key_group, y: k.bytes, subtask: k.subtask})),
    backgroundColor: o.key_groups.map(k => hot.has(k.key_group) ? '#d03030' : shades[((k.subtask % 2) + 2) % 2]),
    barPercentage: 1, categoryPercentage: 1}]},
    options: {parsing: false, plugins: {legend: {display: false}, tooltip: {callbacks: {label: c => 'key group ' + c.raw.x + ', subtask ' + c.raw.subtask + ': ' + human(c.raw.y) + (hot.has(c.raw.x) ? ' (hot)' : '')}}},
      scales: {x: {type: 'linear', title: {display: true, text: 'key group'}, min: -0.5, max: o.max_parallelism - 0.5,
        ticks: {callback: v => Number.isInteger(v) ? v : ''}},
        y: {beginAtZero: true, title: {display: true, text: 'bytes'}, ticks: {callback: v => human(v)}}}}});
  chart(s, 'skew-subtasks-' + o.id, {type: 'bar', data: {labels: o.subtasks.map(t => String(t.index)), datasets: [
    {label: 'bytes per subtask', data: o.subtasks.map(t => t.bytes), backgroundColor: '#4a7ab5'}]}, options: {scales: {y: {beginAtZero: true, ticks: {callback: v => human(v)}}}}});
  const byKg = {}; o.key_groups.forEach(k => byKg[k.key_group] = k);
  table(s, ['largest key groups', 'subtask', 'bytes', 'entries', 'x median'], o.largest_key_groups.map(g => ({cls: hot.has(g) ? 'hot' : null, cells: [
    txt(g), txt(byKg[g].subtask), num(byKg[g].bytes, 'bytes'), txt(byKg[g].entry_count), txt(o.median_key_group_bytes ? (byKg[g].bytes / o.median_key_group_bytes).toFixed(1) : '-')]})));
  $('p', {text: o.hot_key_groups.length ? 'Hot key groups: ' + o.hot_key_groups.join(', ') : 'No hot key group.', 'data-hot': o.hot_key_groups.join(',')}, s);
});

// History
if (D.history.length > 1) {
  s = section('History over ' + D.history.length + ' checkpoints');
  const labels = D.history.map(c => c.name);
  chart(s, 'history-size', {type: 'line', data: {labels: labels, datasets: [
    {label: 'full', data: D.history.map(c => c.state_size), borderColor: '#4a7ab5'},
    {label: 'incremental', data: D.history.map(c => c.checkpointed_size), borderColor: '#e0a040'},
    {label: 'uploaded (new files)', data: D.history.map(c => c.added_bytes), borderColor: '#60a060'}]}, options: {scales: {y: {beginAtZero: true, ticks: {callback: v => human(v)}}}}});
  chart(s, 'history-files', {type: 'bar', data: {labels: labels, datasets: [
    {label: 'added', data: D.history.map(c => c.added_file_count), backgroundColor: '#60a060', stack: 'referenced'},
    {label: 'shared', data: D.history.map(c => c.shared_file_count), backgroundColor: '#4a7ab5', stack: 'referenced'},
    {label: 'dropped', data: D.history.map(c => c.dropped_file_count), backgroundColor: '#c05050', stack: 'dropped'}]},
    options: {scales: {x: {stacked: true}, y: {stacked: true, beginAtZero: true, title: {display: true, text: 'files'}}}}});
  const colours = ['#4a7ab5', '#e0a040', '#60a060', '#c05050', '#8060b0', '#40a0a0', '#b08040', '#606060'];
  chart(s, 'history-operators', {type: 'line', data: {labels: labels, datasets: D.operators.map((o, i) => ({label: opLabel(o),
    data: D.history.map(c => { const x = c.operators.find(p => p.operator === o.id); return x ? x.state_size : null; }), borderColor: colours[i % colours.length]}))},
    options: {scales: {y: {beginAtZero: true, ticks: {callback: v => human(v)}}}}});
  table(s, ['checkpoint', 'id', 'full', 'incremental', 'files', 'added', 'shared', 'dropped', 'uploaded'], D.history.map(c => ({cells: [
    txt(c.name), txt(c.checkpoint_id), num(c.state_size, 'state_size'), num(c.checkpointed_size, 'checkpointed_size'), txt(c.file_count), txt(c.added_file_count), txt(c.shared_file_count), txt(c.dropped_file_count), num(c.added_bytes, 'added_bytes')]})));
  if (D.most_grown) { const o = opById[D.most_grown]; const g = D.growth.find(x => x.operator === D.most_grown);
    $('p', {text: 'Grew most: ' + opLabel(o) + ' (' + o.id + '), ' + human(g.first_state_size) + ' -> ' + human(g.last_state_size), 'data-most-grown': o.id}, s); }
}

// Advice
s = section('Advice');
const adv = D.advice ? D.advice.advice : [];
if (!adv.length) $('p', {text: 'No recommendation: nothing measured calls for a change.'}, s);
adv.forEach(a => { const d = $('div', {class: 'advice', 'data-rule': a.rule}, s); $('b', {text: a.rule + (a.operator ? ' (' + a.operator + ')' : '')}, d); $('p', {text: a.recommendation}, d);
  const ul = $('ul', null, d); a.evidence.forEach(e => $('li', {text: e.name + ': ' + e.value}, ul)); a.settings.forEach(x => { const li = $('li', null, ul); $('code', {text: x.key + ': ' + x.value}, li); }); });
if (D.advice) { const ul = $('ul', null, s); D.advice.silent.forEach(x => $('li', {text: 'silent: ' + x}, ul)); }

// Every chart must have drawn something; what was drawn goes into attributes for the browser test.
const empty = charts.filter(c => { const g = c.canvas.getContext('2d'); const w = c.canvas.width, h = c.canvas.height; if (!w || !h) return true;
  const px = g.getImageData(0, 0, w, h).data; for (let i = 3; i < px.length; i += 4) if (px[i]) return false; return true; }).map(c => c.name);
charts.forEach(c => { const ch = c.chart; c.canvas.setAttribute('data-type', ch.config.type);
  const y = ch.scales[ch.options.indexAxis === 'y' ? 'x' : 'y']; if (y) c.canvas.setAttribute('data-y-min', String(y.min));
  if (c.name.startsWith('skew-key-groups-')) { const bars = ch.getDatasetMeta(0).data; let top = -1;
    bars.forEach((b, i) => { if (top < 0 || b.y < bars[top].y) top = i; });
    if (top >= 0) c.canvas.setAttribute('data-tallest', String(ch.data.datasets[0].data[top].x)); } });
const st = document.getElementById('status');
st.setAttribute('data-charts', String(charts.length)); st.setAttribute('data-empty', empty.join(','));
st.setAttribute('data-page-width', String(document.documentElement.scrollWidth)); st.setAttribute('data-window-width', String(window.innerWidth));
if (empty.length) fail('charts drew nothing: ' + empty.join(', '));
else if (st.getAttribute('data-state') !== 'error') st.setAttribute('data-state', 'ok');
})();
)JS";

}  // namespace

std::string report_html(const Report& r, const std::string& json, const std::string& chart_js) {
  std::string out;
  out.reserve(chart_js.size() + json.size() + 16384);
  std::string name;
  for (char c : r.path) {
    if (c == '<')
      name += "&lt;";
    else if (c == '&')
      name += "&amp;";
    else
      name += c;
  }
  out +=
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>ckpt report: " + name + "</title>\n";
  // A failure is the one thing of the checks the reader sees: a message at the top.
  out +=
      "<script>window.ckptFail=function(m){var s=document.getElementById('status');if(s)s.setAttribute('data-state',"
      "'error');var e=document.getElementById('ckpt-error');if(e){e.hidden=false;e.textContent='This page could not be "
      "drawn: '+m;}};window.addEventListener('error',function(e){window.ckptFail(e.message);});</script>\n";
  out += "<style>";
  out += kStyle;
  out += "</style>\n<script>\n";
  out += chart_js;  // Chart.js's UMD build: no "</script" inside (checked by the tool)
  out += "\n</script>\n</head><body>\n<h1>ckpt report: " + name + "</h1>\n";
  out += "<p id=\"ckpt-error\" class=\"error\" hidden></p>\n<p id=\"ckpt-summary\"></p>\n";
  out += "<div id=\"status\" hidden data-state=\"drawing\"></div>\n<div id=\"ckpt-main\"></div>\n";
  out += "<script type=\"application/json\" id=\"ckpt-data\">";
  out += script_safe(json);
  out += "</script>\n<script>";
  out += kScript;
  out += "</script>\n</body></html>\n";
  return out;
}

}  // namespace ckpt
