// The builder's dialog (issue 23): the table test (tabletest.js) in one tab; in the other, the
// camera tools: the camera's picture with the markers found,
// the board's regions, the tray and the dice drawn on it; calibration taken from a frame and
// saved; icon dice learned face by face. Everything comes from the control ops (camera_state,
// calibrate_take, calibrate_save, learn_dice, learn_take, learn_cancel, learn_save) and the
// picture from /api/camera.jpg, asked for again only while the dialog is open. The tools wait
// for a game in progress to be paused, as the table refuses them meanwhile.
"use strict";

const PICTURE_MS = 400; // the picture at most 2.5 times a second
const STATE_EVERY = 2; // the state every other picture
let toolsState = null; // the reply of camera_state
let toolsTicks = 0;
let toolsTimer = null;
let pictureLoading = false;
let calibSaid = null; // what the calibration section says: a refusal, or { key: "calib_saved" }
let learnSaid = null; // a refusal of a learning request
let kindsKey = null;
let toolsTab = "test"; // the tab shown: "test" or "camera"

function toolsDialog() {
  return document.getElementById("tools");
}

// The tools are the builder's while no game is in progress, or while it is paused.
function toolsAllowed() {
  return Boolean(snap && (snap.paused || snap.result));
}

function said(reply) {
  return tableText(reply.error ?? "", reply.key, reply.params);
}

async function fetchToolsState() {
  const reply = await getJSON("/api/camera_state"); // past.js
  if (reply.ok) toolsState = reply;
  drawTools();
}

function refreshPicture() {
  if (pictureLoading) return; // a slow table: never more than one picture on its way
  pictureLoading = true;
  $("tools-picture").src = `/api/camera.jpg?t=${Date.now()}`;
}

function toolsTick() {
  toolsTimer = null;
  if (!toolsDialog().open) return;
  if (toolsTab === "camera") {
    if (toolsAllowed()) refreshPicture();
    if (toolsTicks++ % STATE_EVERY === 0) fetchToolsState();
  }
  toolsTimer = setTimeout(toolsTick, PICTURE_MS);
}

function openTools() {
  calibSaid = learnSaid = null;
  toolsDialog().showModal();
  drawTools();
  if (toolsTimer === null) toolsTick();
}

function cameraLine(state) {
  const parts = [t(state.source === "sim" ? "tools_source_sim" : "tools_source_camera")];
  if (state.fps) parts.push(t("tools_fps", { fps: state.fps }));
  if (state.exposure_us) parts.push(t("tools_exposure", { ms: (state.exposure_us / 1000).toFixed(1) }));
  const saved = state.calibration;
  if (saved) {
    parts.push(t("tools_calibrated", { error: saved.error_mm.toFixed(2), markers: saved.markers.join(", ") }));
  } else if (state.calibration_problem) {
    parts.push(t("tools_calibration_bad", { why: state.calibration_problem }));
  } else {
    parts.push(t("tools_uncalibrated"));
  }
  return parts.join(" · ");
}

function drawCalibration(state) {
  $("calib-help").textContent = t("calib_help", { markers: state.markers.join(", ") });
  const taken = state.taken;
  $("calib-save").hidden = !taken;
  const result = $("calib-result");
  result.classList.toggle("refused", Boolean(calibSaid?.error));
  if (calibSaid?.error) result.textContent = said(calibSaid);
  else if (taken) result.textContent = t("calib_taken", { markers: taken.markers.join(", "), error: taken.error_mm.toFixed(2) });
  else result.textContent = calibSaid ? t(calibSaid.key) : "";
}

function faceText(face) {
  return readable(face); // words.js
}

function learnPrompt(job) {
  const step = job.steps[job.taking ?? job.next ?? 0];
  const face = step ? faceText(step.face) : "";
  if (job.state === "failed" && job.error) return tableText(job.error.text, job.error.key, job.error.params);
  if (job.state === "taking") return t("learn_taking", { face });
  if (job.state === "learning") return t("learn_learning");
  const percent = (x) => Math.round(x * 100);
  if (job.state === "learned" && job.accuracy.colour !== null) {
    return t("learn_learned_colour", { accuracy: percent(job.accuracy.face), colour: percent(job.accuracy.colour) });
  }
  if (job.state === "learned") return t("learn_learned", { accuracy: percent(job.accuracy.face) });
  if (job.state === "saved") return t("learn_saved", { path: job.saved });
  if (job.next === null) return "";
  return step.colour ? t("learn_put_colour", { face, colour: faceText(step.colour) }) : t("learn_put", { face });
}

function drawLearning(state) {
  const kinds = JSON.stringify([state.learnable, lang]);
  if (kinds !== kindsKey) {
    kindsKey = kinds;
    const chosen = $("learn-kind").value || state.learning?.kind;
    $("learn-kind").replaceChildren(...state.learnable.map((kind) =>
      el("option", { value: kind, text: readable(kind), selected: kind === chosen ? "" : null })));
  }
  const job = state.learning && state.learning.state !== "cancelled" ? state.learning : null;
  $("learn-box").hidden = !job && !learnSaid;
  $("learn-prompt").classList.toggle("refused", Boolean(learnSaid) || job?.state === "failed");
  if (!job) {
    $("learn-prompt").textContent = learnSaid ? said(learnSaid) : "";
    $("learn-faces").replaceChildren();
    for (const id of ["learn-take", "learn-save", "learn-cancel", "learn-progress"]) $(id).hidden = true;
    return;
  }
  for (const id of ["learn-cancel", "learn-progress"]) $(id).hidden = false;
  const busy = job.state === "taking" || job.state === "learning";
  const taken = job.steps.reduce((sum, step) => sum + step.taken, 0);
  $("learn-progress").value = taken / (job.steps.length * job.shots);
  $("learn-progress").setAttribute("aria-label", t("learn_progress"));
  $("learn-prompt").textContent = learnSaid ? said(learnSaid) : learnPrompt(job);
  $("learn-take").hidden = busy || job.next === null;
  $("learn-save").hidden = job.state !== "learned";
  $("learn-faces").replaceChildren(...job.steps.map((step, i) => el("li",
    { class: i === (job.taking ?? job.next) ? "current" : null },
    el("span", { text: t("learn_face", { face: faceText(step.face), taken: step.taken, shots: job.shots }) }),
    el("button", {
      type: "button", text: t("learn_redo"), disabled: busy || step.taken === 0 ? "" : null,
      onclick: () => toolPost("learn_take", { face: step.face }, "learn"),
    }))));
}

// Called by app.js's render() and after each reply: the dialog follows the game's pause.
function drawTools() {
  if (!toolsDialog().open) return;
  const allowed = toolsAllowed();
  $("tools-paused").hidden = allowed;
  for (const [tab, panel] of [["test", "test-body"], ["camera", "tools-body"]]) {
    $(`tools-tab-${tab}`).setAttribute("aria-selected", String(tab === toolsTab));
    $(panel).hidden = !allowed || tab !== toolsTab;
  }
  if (!allowed) leaveTableTest(); // tabletest.js
  if (allowed && toolsTab === "test") drawTableTest();
  if (!allowed || toolsTab !== "camera" || !toolsState) return;
  $("tools-camera").textContent = toolsState.source ? cameraLine(toolsState) : t("tools_no_picture");
  drawCalibration(toolsState);
  drawLearning(toolsState);
}

async function toolPost(op, body, section) {
  const reply = await post(op, body); // app.js
  if (section === "calib") calibSaid = reply.ok ? (op === "calibrate_save" ? { key: "calib_saved" } : null) : reply;
  else learnSaid = reply.ok ? null : reply;
  showError(""); // said in the dialog, beside the button
  await fetchToolsState();
}

for (const [id, op, section, body] of [
  ["calib-take", "calibrate_take", "calib"],
  ["calib-save", "calibrate_save", "calib"],
  ["learn-start", "learn_dice", "learn", () => ({ kind: document.getElementById("learn-kind").value })],
  ["learn-take", "learn_take", "learn"],
  ["learn-save", "learn_save", "learn"],
  ["learn-cancel", "learn_cancel", "learn"],
]) document.getElementById(id).addEventListener("click", () => toolPost(op, body ? body() : {}, section));
document.getElementById("tools-open").addEventListener("click", openTools);
for (const tab of ["test", "camera"]) {
  document.getElementById(`tools-tab-${tab}`).addEventListener("click", () => {
    toolsTab = tab;
    if (tab === "camera") fetchToolsState();
    drawTools();
  });
}
toolsDialog().addEventListener("close", leaveTableTest);
document.getElementById("tools-pause").addEventListener("click", () => post("pause"));
document.getElementById("tools-picture").addEventListener("load", () => {
  pictureLoading = false;
  document.getElementById("tools-picture").hidden = false;
});
document.getElementById("tools-picture").addEventListener("error", () => {
  pictureLoading = false;
  document.getElementById("tools-picture").hidden = true;
});
toolsDialog().addEventListener("click", (event) => {
  if (event.target === event.currentTarget) event.currentTarget.close();
});
