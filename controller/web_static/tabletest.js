// The table test (issue 23), the first tab of the builder's dialog (tools.js): the automatic
// check of the control op `check` and its report in words; a live map of the board's reeds from
// the snapshot's `reeds_closed`, each spot named as the board draws it; a spot's LEDs, or every
// LED in turn, lit by the op `light_test`. Like the camera tools, it waits for a pause.
"use strict";

const TEST_PARTS = ["profile", "lights", "reeds", "link", "camera"]; // check_report.PARTS
const LED_STEP_MS = 700; // each LED of the walk lit this long: time to find it on the board
let testReport = null; // the last report of `check`
let testRefusal = null; // why the last check was refused, or a part to choose
let testRunning = false;
let testDrawn = null; // the report and language the report list was drawn for
let partsLang = null; // the language the parts' boxes were drawn in
let lit = null; // what `light_test` lit last: { asked, reply }, or { refused }
let ledWalk = null; // { next, timer } while the LEDs are walked

// A sentence of the table's (the check's, in English as the terminal says it), begun in capitals
// unless it begins with a name (r4c5, a file).
function sentence(text) {
  const said = /^[a-z]+\s/.test(text) ? text.charAt(0).toUpperCase() + text.slice(1) : text;
  return /[.!?]$/.test(said) ? said : `${said}.`;
}

const LISTED = 12; // names listed before "+N"

function listed(values) {
  if (!values || values.length === 0) return t("test_none");
  const more = values.length > LISTED ? ` +${values.length - LISTED}` : "";
  return values.slice(0, LISTED).join(", ") + more;
}

function cameraFigures(f) {
  const said = [];
  if ("fps" in f) {
    said.push(t("test_fig_camera_rate", { frames: f.frames, fps: f.fps ?? "?" }));
    if (f.exposure_us) said.push(t("tools_exposure", { ms: (f.exposure_us / 1000).toFixed(1) }));
  }
  if ("width" in f) {
    said.push(t("test_fig_camera", {
      width: f.width, height: f.height, level: f.mean_level,
      found: listed(f.markers_found), missing: listed(f.markers_missing),
    }));
  }
  return said.join(" ");
}

// A part's figures in a sentence or two; "" for a part that measured nothing.
function figuresText(name, f) {
  if (name === "profile" && "spots" in f) {
    return t("test_fig_profile", { name: f.name, spots: f.spots, reeds: f.reeds, leds: f.leds, regions: f.camera_regions });
  }
  if (name === "lights" && "full_white_ma" in f) {
    return t("test_fig_lights", {
      leds: f.leds_driven ?? 0, read: f.read_back ? t("test_fig_read_back") : "",
      full: f.full_white_ma, capped: f.capped_white_ma, cap: Math.round(f.brightness_cap * 100),
      budget: f.power_budget_ma,
    });
  }
  if (name === "reeds" && "reeds" in f) {
    const said = [t("test_fig_reeds", { reeds: f.reeds, closed: listed(f.closed_at_start) })];
    if ("walked" in f) {
      const bounces = Object.entries(f.bounce_counts).map(([spot, n]) => `${spot} ×${n}`);
      said.push(t("test_fig_walked", { walked: f.walked, skipped: listed(f.skipped), bounces: listed(bounces) }));
    }
    return said.join(" ");
  }
  if (name === "link" && "firmware" in f) {
    return t("test_fig_link", {
      firmware: f.firmware, port: f.port, matrix: f.matrix, frames: f.frames, crc: f.crc_errors,
      resends: f.led_resends, rtt: f.round_trip_ms ?? "?", rtt_max: f.round_trip_max_ms ?? "?",
    });
  }
  if (name === "camera") return cameraFigures(f);
  return "";
}

function kindTitle(kind) {
  return STRINGS[lang][`fault_kind_${kind}`] ? t(`fault_kind_${kind}`) : kind.replaceAll("_", " ");
}

// A fault or warning: what it is, the check's sentence, and what it names on the table.
function faultItem(fault) {
  const named = [];
  if (fault.spots.length) named.push(`${t("test_named_spots")}: ${fault.spots.join(", ")}`);
  if (fault.leds.length) named.push(`${t("test_named_leds")}: ${fault.leds.join(", ")}`);
  if (fault.channels.length) named.push(`${t("test_named_channels")}: ${fault.channels.join(", ")}`);
  if (fault.file) {
    const line = fault.line ? `, ${t("test_named_line")} ${fault.line}` : "";
    named.push(`${fault.file}${line}${fault.key ? ` (${fault.key})` : ""}`);
  }
  const severity = t(fault.severity === "fault" ? "test_fault" : "test_warning");
  return el("li", { "data-kind": fault.kind, "data-severity": fault.severity },
    el("strong", { text: `${kindTitle(fault.kind)} (${severity}) ` }),
    el("span", { text: sentence(fault.text) }),
    ...(named.length ? [el("small", { class: "named", text: named.join(" · ") })] : []));
}

function partItem(name, part) {
  const figures = figuresText(name, part.figures);
  return el("li", { "data-part": name, "data-status": part.status },
    el("h4", {}, el("span", { text: t(`test_part_${name}`) }), " ",
      el("span", { class: "status", text: t(`test_status_${part.status}`) })),
    ...[
      figures ? el("p", { class: "figures", text: figures }) : null,
      part.skipped ? el("p", { class: "skipped", text: sentence(part.skipped) }) : null,
      part.faults.length ? el("ul", { class: "faults" }, ...part.faults.map(faultItem)) : null,
    ].filter(Boolean));
}

function drawParts() {
  if (partsLang === lang) return;
  partsLang = lang;
  const box = (part) => document.getElementById(`test-part-${part}`);
  const chosen = new Set(TEST_PARTS.filter((part) => box(part)?.checked ?? true));
  $("test-parts").replaceChildren(el("legend", { text: t("test_parts") }), ...TEST_PARTS.map((part) =>
    el("label", {}, el("input", { type: "checkbox", id: `test-part-${part}`, checked: chosen.has(part) ? "" : null }),
      el("span", { text: t(`test_part_${part}`) }))));
}

function drawReport() {
  const summary = $("test-summary");
  const report = testReport;
  summary.dataset.passed = testRunning || testRefusal || !report ? "" : String(report.passed);
  if (testRunning) summary.textContent = t("test_running");
  else if (testRefusal) summary.textContent = testRefusal.key === "none_chosen" ? t("test_none_chosen") : said(testRefusal);
  else if (report) {
    const about = { profile: report.profile, sim: report.simulated ? t("test_simulated") : "" };
    summary.textContent = report.passed ? t("test_passed", about) : t("test_failed", { ...about, count: report.faults.length });
  } else summary.textContent = "";
  $("test-run").disabled = testRunning;
  if (testDrawn?.report === report && testDrawn.lang === lang) return;
  testDrawn = { report, lang };
  $("test-report").replaceChildren(...Object.entries(report?.parts ?? {}).map(([name, part]) => partItem(name, part)));
}

// -- the live map ----------------------------------------------------------------------

function litSpots() {
  return new Set(lit?.reply?.spots ?? []);
}

function mapSpot(id, spot, className, label, marks) {
  const node = el("div", {
    class: className, "data-spot": id, "data-sensor": spot.sensor,
    "data-closed": spot.sensor === "reed" ? String(marks.closed.has(id)) : null,
    "data-fault": marks.faulty.has(id) ? "" : null,
    "data-lit": marks.lit.has(id) ? "" : null,
    title: id, onclick: (event) => {
      event.stopPropagation();
      lightSpot(id);
    },
  }, el("span", { class: "name", text: label }));
  focusable(node); // app.js: reached with Tab, lit with Enter or Space
  return node;
}

function drawMap() {
  const map = $("test-map");
  const spots = snap.spots;
  const faults = testReport ? [...testReport.faults, ...testReport.warnings] : [];
  const marks = {
    closed: new Set(snap.reeds_closed ?? []),
    faulty: new Set(faults.filter((f) => f.severity === "fault").flatMap((f) => f.spots)),
    lit: litSpots(),
  };
  const focused = document.activeElement?.closest?.("#test-map [data-spot]")?.dataset.spot;
  map.style.setProperty("--cols", Math.max(...snap.board_rows.map((row) => row.length)));
  const squares = {};
  const cells = [];
  snap.board_rows.forEach((row, r) => row.forEach((id, c) => {
    const cell = mapSpot(id, spots[id] ?? { sensor: "unsensed" }, "cell", id, marks);
    cell.style.gridArea = `${r + 1} / ${c + 1}`;
    cell.append(el("div", { class: "subs" }));
    squares[id] = cell;
    cells.push(cell);
  }));
  const others = el("div", { class: "others" });
  for (const [id, spot] of Object.entries(spots)) {
    if (squares[id] || spot.sensor !== "reed") continue; // the board's squares, and its reeds
    const dot = id.lastIndexOf(".");
    const square = dot > 0 ? squares[id.slice(0, dot)] : undefined;
    if (square) square.querySelector(".subs").append(mapSpot(id, spot, "sub", wordText(id.slice(dot + 1)), marks));
    else others.append(mapSpot(id, spot, "sub", id, marks));
  }
  map.replaceChildren(el("div", { class: "grid" }, ...cells), ...(others.childElementCount ? [others] : []));
  if (focused) map.querySelector(`[data-spot="${CSS.escape(focused)}"]`)?.focus();
  const closed = snap.reeds_closed ?? [];
  $("test-closed").textContent = t("test_closed", { count: closed.length, spots: listed(closed) });
}

function drawLit() {
  const box = $("test-lit");
  box.classList.toggle("refused", Boolean(lit?.refused));
  if (!lit) box.textContent = "";
  else if (lit.refused) box.textContent = said(lit.refused);
  else if (lit.asked.spot !== undefined && lit.reply.leds.length === 0) box.textContent = t("test_no_led", { spot: lit.asked.spot });
  else if (lit.asked.spot !== undefined) box.textContent = t("test_lit_spot", { spot: lit.asked.spot, leds: lit.reply.leds.join(", ") });
  else {
    const spots = lit.reply.spots.length ? lit.reply.spots.join(", ") : t("test_no_spot");
    box.textContent = t("test_lit", { leds: lit.reply.leds.join(", "), spots });
  }
  $("test-walk-leds").textContent = t(ledWalk ? "test_walk_stop" : "test_walk_leds");
  $("test-walk-leds").setAttribute("aria-pressed", String(Boolean(ledWalk)));
}

// Called by drawTools (tools.js) while the test's tab is shown and the table allows it.
function drawTableTest() {
  drawParts();
  drawReport();
  drawMap();
  drawLit();
  $("test-walk-note").textContent = t(snap.sim ? "test_walk_sim" : "test_walk_cli");
}

// The game resumed, or the dialog closed: no walk goes on, and the game's lights come back.
function leaveTableTest() {
  stopLedWalk();
  if (lit && !lit.refused && toolsAllowed()) post("light_test").then(() => showError(""));
  lit = null;
}

// -- requests --------------------------------------------------------------------------

async function runCheck() {
  const only = TEST_PARTS.filter((part) => document.getElementById(`test-part-${part}`).checked);
  testRefusal = only.length ? null : { key: "none_chosen" };
  if (only.length) {
    stopLedWalk();
    testRunning = true;
    drawTools();
    const reply = await post("check", only.length === TEST_PARTS.length ? {} : { only });
    showError(""); // said in the dialog
    testRunning = false;
    if (reply.ok) testReport = reply.report;
    else testRefusal = reply;
  }
  drawTools();
}

async function lightTest(asked) {
  const reply = await post("light_test", asked);
  showError("");
  lit = reply.ok ? { asked, reply } : { refused: reply };
  drawTools();
  return reply;
}

function lightSpot(id) {
  stopLedWalk();
  lightTest({ spot: id });
}

async function ledStep() {
  const walk = ledWalk;
  if (!walk) return;
  const reply = await lightTest({ led: walk.next });
  if (walk !== ledWalk) return; // stopped meanwhile
  walk.next += 1;
  if (!reply.ok || walk.next >= reply.count) stopLedWalk();
  else walk.timer = setTimeout(ledStep, LED_STEP_MS);
  drawTools();
}

function stopLedWalk() {
  if (ledWalk?.timer) clearTimeout(ledWalk.timer);
  ledWalk = null;
}

document.getElementById("test-run").addEventListener("click", runCheck);
document.getElementById("test-walk-leds").addEventListener("click", () => {
  if (ledWalk) stopLedWalk();
  else {
    ledWalk = { next: 0, timer: null };
    ledStep();
  }
  drawTools();
});
document.getElementById("test-lights-back").addEventListener("click", () => {
  stopLedWalk();
  lit = null;
  post("light_test").then(() => {
    showError("");
    drawTools();
  });
});
