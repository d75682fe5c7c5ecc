// The Take back button (issue 24), as `smartboard undo`: the last move goes, the lights show
// where its pieces go back. "And roll again" takes back the roll that move was made on too.
// When the players have put the table back as it was before the last move by hand, the button
// asks whether to take it back.
"use strict";

// The person's move named, what followed it (rolls, the table's replies) counted: every step
// is named in the button's tooltip and in the message once taken back.
function what(taken) {
  return t("undo_what", { player: playerName(taken.player), actions: stepsText(taken.actions) });
}

function drawUndo() {
  const taken = snap.take_back;
  const said = (ids) => ids.map(actionText).join(t("moves_sep"));
  const box = document.getElementById("undo-box");
  const button = document.getElementById("undo");
  // Linked tables (room.js): taken back here alone, a move would leave the tables disagreeing.
  const linked = Boolean(snap.room);
  button.disabled = !taken || linked;
  box.classList.toggle("offer", Boolean(taken?.shown) && !linked);
  document.getElementById("undo-what").textContent = linked ? t("undo_linked")
    : !taken ? t("undo_nothing") : taken.shown ? t("undo_offer") : what(taken);
  button.title = taken ? said(taken.actions) : t("undo_nothing");
  const rolled = taken?.rolled ?? [];
  const reroll = document.getElementById("undo-reroll");
  document.getElementById("undo-reroll-label").hidden = rolled.length === 0 || linked;
  if (rolled.length === 0) reroll.checked = false;
  document.getElementById("undo-reroll-text").textContent = t("undo_reroll", { actions: said(rolled) });
}

document.getElementById("undo").addEventListener("click", async () => {
  const reroll = document.getElementById("undo-reroll");
  const shown = !document.getElementById("undo-reroll-label").hidden;
  const reply = await post("undo", { reroll: shown && reroll.checked });
  if (reply.ok) reroll.checked = false;
});

// The simulated table's hands lay out what chance brings up to a player's decision (the
// `lay_out` op): the dice of a set-up rolled onto their spaces, the cards laid face down. On a
// real table the players do it and the camera reads it: the snapshot never offers it there.
function drawLayOut() {
  const offer = snap.lay_out ?? null;
  document.getElementById("lay-out-box").hidden = offer === null;
  const button = document.getElementById("lay-out");
  button.disabled = offer === "running";
  // A game of cards alone has nothing to roll (Multipli Potion): "Lay it out for me".
  const rolls = snap.games?.[snap.game]?.dice?.length !== 0;
  button.textContent = t(offer === "running" ? "lay_out_running" : rolls ? "lay_out" : "lay_out_cards");
  document.getElementById("lay-out-text").textContent = t("lay_out_help");
  // How far it has gone: the steps left up to the decision, out of all, while it runs.
  const left = snap.lay_out_steps?.left ?? null;
  const laid = snap.lay_out_steps?.laid ?? 0;
  const running = offer === "running";
  // One step at a time, to watch each card or die come, where there are several.
  document.getElementById("lay-out-one").hidden = running || left === 1;
  document.getElementById("lay-out-steps").hidden = left === null;
  const key = running ? "lay_out_to_go" : "lay_out_steps";
  document.getElementById("lay-out-left").textContent = left === null ? ""
    : t(left === 1 ? `${key}_one` : key, { count: left, total: laid + left });
  const progress = document.getElementById("lay-out-progress");
  progress.hidden = !running || left === null;
  progress.value = laid + (left ?? 0) > 0 ? laid / (laid + left) : 0;
}

document.getElementById("lay-out").addEventListener("click", () => post("lay_out"));
document.getElementById("lay-out-one").addEventListener("click", () => post("lay_out", { one: true }));
