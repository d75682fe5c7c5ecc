// Games people keep: the players' names in the new-game form, the past games of the table, and
// one of them shown again on the board, step by step. A replayed position is a snapshot that the
// daemon builds (op `replay`), drawn by app.js's render() as the live table is; meanwhile the
// live snapshots are kept aside, and the play controls hidden.
"use strict";

let replaying = null; // the past game on the board: { game, step, steps, action }, else null
let liveKept = null; // the latest live snapshot, while a past game is on the board
let pastGames = null; // the list as last fetched
let pastStarted; // when the live game started: another start means one more past game
let stepWanted = null; // the step the slider or a button asks for, until it is drawn
let stepAsked = false; // a step is being fetched: one at a time

// The name a player chose for a seat, else `fallback` (the seat's own name).
function seatName(snapshot, seat, fallback) {
  return snapshot?.names?.[seat] || fallback;
}

// A seat's own name from the catalogue of the game on the table (words.js), else made readable.
function seatText(seat, game = null) {
  const words = snap?.games?.[game]?.seat_words;
  return words?.[lang]?.[seat] ?? words?.en?.[seat] ?? lookup("players", seat) ?? readable(seat);
}

// -- names in the new-game form ------------------------------------------------------------

// A name field per seat: as many as the players option says, else every seat of the game.
function drawNames() {
  const name = $("new-game").value;
  const seats = snap.games[name]?.seats ?? [];
  const players = $("new-options").querySelector("input[name=players]");
  if (players && !players.dataset.names) {
    players.dataset.names = "true";
    players.addEventListener("input", drawNames);
  }
  const count = Math.min(Math.max(Number(players?.value) || seats.length, 1), seats.length);
  const box = $("new-names");
  const typed = [...box.querySelectorAll("input")].map((input) => input.value);
  const kept = box.dataset.game === name ? typed : name === snap.game ? snap.names ?? [] : [];
  box.dataset.game = name;
  box.replaceChildren(el("legend", { text: t("names") }), ...seats.slice(0, count).map((seat, i) =>
    el("label", {}, el("span", { text: t("player_n", { n: i + 1 }) }), " ",
      el("input", {
        type: "text", name: `name${i}`, maxlength: "24", autocomplete: "off",
        placeholder: seatText(seat, name), value: kept[i] ?? "",
      }))));
}

// The names typed, one a seat; a blank one leaves the seat its own name.
function chosenNames() {
  return [...$("new-names").querySelectorAll("input")].map((input) => input.value.trim() || null);
}

// -- the list of past games ----------------------------------------------------------------

async function getJSON(path) {
  try {
    const response = await fetch(path);
    return await response.json();
  } catch (error) {
    return { ok: false, error: String(error) };
  }
}

async function loadPast() {
  const reply = await getJSON("/api/games");
  if (!reply.ok) {
    showError(reply.error);
    return;
  }
  pastGames = reply.games;
  drawPastList();
}

function when(started) {
  if (started === null || started === undefined) return "–";
  return new Date(started * 1000).toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
}

function gameTitle(game) {
  return snap?.games?.[game.game]?.titles?.[lang] ?? game.title;
}

function pastPlayers(game) {
  // Each game's seats by its own words, not those of the game on the table (the walk).
  return game.players.map((seat, i) => seatName(game, i, seatText(seat, game.game)));
}

function pastResult(game) {
  if (game.result === "abandoned") return t("abandoned");
  const winners = game.result.winners.map((seat) =>
    seatName(game, game.players.indexOf(seat), seatText(seat, game.game)));
  return winners.length ? t("won_by", { names: winners.join(", ") }) : t("nobody_won");
}

function pastItem(game) {
  if (game.unreadable) {
    return el("li", { "data-game-id": game.id, class: "unreadable", title: game.unreadable },
      el("span", { class: "when", text: when(game.started) }), " ",
      el("span", { text: `${t("unreadable")}: ${game.id}` }));
  }
  const download = `/api/record.json?id=${encodeURIComponent(game.id)}`;
  return el("li", { "data-game-id": game.id },
    el("div", { class: "what" },
      el("strong", { text: gameTitle(game) }), " ",
      el("span", { class: "when", text: when(game.started) })),
    el("div", { class: "who", text: pastPlayers(game).join(", ") }),
    el("div", { class: "how", title: game.note ?? "" },
      `${pastResult(game)} · ${t("moves", { count: game.moves })}`),
    el("div", { class: "open" },
      el("button", { type: "button", class: "replay", text: t("replay"), onclick: () => openPast(game) }),
      el("a", { href: download, download: "", text: t("download") })));
}

function drawPastList() {
  if (pastGames === null) return;
  $("past-none").hidden = pastGames.length > 0;
  $("past-list").replaceChildren(...pastGames.map(pastItem));
}

// -- a past game on the board --------------------------------------------------------------

// A live snapshot: kept aside while a past game is on the board (true), else drawn by app.js.
// A new game on the table means one more past game: the list is fetched again.
function keptAside(live) {
  if (live.started !== pastStarted) loadPast();
  pastStarted = live.started;
  if (!replaying) return false;
  liveKept = live;
  return true;
}

async function openPast(game) {
  const reply = await getJSON(`/api/replay?id=${encodeURIComponent(game.id)}&step=0`);
  if (!reply.ok) {
    showError(reply.error);
    return;
  }
  showError("");
  if (!replaying) liveKept = snap;
  replaying = { game, step: reply.step, steps: reply.steps, action: reply.action };
  stepWanted = null;
  snap = reply.snapshot;
  render();
  window.scrollTo({ top: 0 });
  $("replay-next").focus();
}

// Ask for a step; while one is fetched, only the latest asked for follows it (a slider dragged).
async function stepTo(step) {
  if (!replaying) return;
  stepWanted = Math.min(Math.max(step, 0), replaying.steps);
  if (stepAsked) return;
  stepAsked = true;
  while (replaying && stepWanted !== null && stepWanted !== replaying.step) {
    const id = replaying.game.id;
    const asked = stepWanted;
    const reply = await getJSON(`/api/replay?id=${encodeURIComponent(id)}&step=${asked}`);
    if (!replaying || replaying.game.id !== id) break; // back to the live game meanwhile
    if (!reply.ok) {
      showError(reply.error);
      break;
    }
    replaying = { ...replaying, step: reply.step, action: reply.action };
    snap = reply.snapshot;
    render();
  }
  stepAsked = false;
  stepWanted = null;
}

function closePast() {
  replaying = null;
  snap = liveKept;
  liveKept = null;
  render();
}

function drawReplayBar() {
  $("replay-bar").hidden = !replaying;
  if (!replaying) return;
  const { game, step, steps, action } = replaying;
  $("replay-title").textContent = t("replaying", { title: gameTitle(game), date: when(game.started) });
  $("replay-players").textContent = pastPlayers(game).join(", ");
  $("replay-step-text").textContent = t("replay_step", { step, steps });
  $("replay-action").textContent = step === 0 ? t("replay_setup") : actionText(action);
  const slider = $("replay-step");
  slider.max = String(steps);
  // Not under a finger dragging it: the thumb stays where it is taken.
  if (document.activeElement !== slider || stepWanted === null) slider.value = String(step);
  $("replay-first").disabled = $("replay-prev").disabled = step === 0;
  $("replay-last").disabled = $("replay-next").disabled = step === steps;
  $("replay-download").href = `/api/record.json?id=${encodeURIComponent(game.id)}`;
  for (const [id, key] of [["replay-first", "replay_first"], ["replay-prev", "replay_prev"],
    ["replay-next", "replay_next"], ["replay-last", "replay_last"], ["replay-step", "replay_slider"]]) {
    $(id).title = t(key);
    $(id).setAttribute("aria-label", t(key));
  }
}

// Called by app.js's render(): the bar of the game replayed, and the list in the page's language.
function drawPast() {
  document.body.classList.toggle("replaying", Boolean(replaying));
  drawReplayBar();
  drawPastList();
}

// Loaded before app.js (whose render() calls drawPast): its `$` is not defined yet here.
for (const [id, event, handler] of [
  ["replay-first", "click", () => stepTo(0)],
  ["replay-prev", "click", () => stepTo((stepWanted ?? replaying.step) - 1)],
  ["replay-next", "click", () => stepTo((stepWanted ?? replaying.step) + 1)],
  ["replay-last", "click", () => stepTo(replaying.steps)],
  ["replay-step", "input", (event) => stepTo(Number(event.target.value))],
  ["replay-close", "click", closePast],
]) document.getElementById(id).addEventListener(event, handler);
