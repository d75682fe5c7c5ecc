// The dashboard: draws each snapshot the daemon pushes, and sends the players' requests.
"use strict";

const $ = (id) => document.getElementById(id);
let lang = localStorage.getItem("lang") || (navigator.language.startsWith("fr") ? "fr" : "en");
let snap = null;
let diceKey = null; // the dice wanted that the roll form was built for
let setupKey = null; // the games and game that the set-up form was built for

function t(key, vars = {}) {
  const text = STRINGS[lang][key] ?? STRINGS.en[key];
  return phrased(text.replace(/\{(\w+)\}/g, (_, name) => String(vars[name])));
}

// A template filled in, as the language says it: French contracts "de" and "à" before a
// name put in its place ("la carte du Joueur 1", "au Joueur 2 de jouer", "le tour d’Ana").
function phrased(text) {
  if (lang !== "fr") return text;
  return text
    .replace(/(^|[\s(])([dD])e (?=Joueur )/g, "$1$2u ")
    .replace(/(^|[\s(])([àÀ]) (?=Joueur )/g, (_, before, a) => `${before}${a === "à" ? "au" : "Au"} `)
    .replace(/(^|[\s(])([dD])e (?=[AEIOUYÉÈÊ][a-zàâäéèêëïîôöùûü])/g, "$1$2’");
}

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
  }
  node.append(...children);
  return node;
}

// What the table said, in the player's language when it names it (a refusal's or an alert's
// `key` and `params`: operations.refused, Daemon.alerts), else as the table wrote it.
function tableText(text, key, params) {
  if (!key || !STRINGS[lang][`table_${key}`]) return text;
  // A seat it names by its id ("mamy_wata"), by the name the players know it by (words.js).
  const named = Object.entries(params ?? {}).map(([name, value]) => [name, isSeat(value) ? playerName(value) : value]);
  return t(`table_${key}`, Object.fromEntries(named));
}

function showError(text, reply = {}) {
  const box = $("error");
  const said = tableText(text, reply.key, reply.params);
  box.textContent = said || "";
  box.hidden = !said;
}

// A random id sent with a request, so that sending it again is never applied twice.
function requestId() {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

// A request the table never answered (the walk: "TypeError: Failed to fetch", kept on the page
// after the table came back): said in words, and cleared once the table is heard again.
let unanswered = false;

async function post(op, body = {}) {
  showError("");
  unanswered = false;
  const sent = JSON.stringify({ ...body, request_id: requestId() });
  let failure = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const response = await fetch(`/api/${op}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: sent,
      });
      const reply = await response.json();
      unanswered = false; // the table answered: its word stands, refusal or not
      if (reply.unknown) {
        failure = reply.error; // the table was slow: the same id again gets its first answer
        continue;
      }
      if (!reply.ok) showError(reply.error, reply);
      return reply;
    } catch (error) {
      console.warn(op, error);
      failure = t("not_sent");
      unanswered = true;
    }
  }
  showError(failure);
  return { ok: false };
}

// -- the board -------------------------------------------------------------------------

function bright(colour) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
  return 0.299 * r + 0.587 * g + 0.114 * b > 150;
}

function spotElement(id, spot, className, label = spotText(id)) {
  const node = el("div", {
    class: className,
    "data-spot": id,
    "data-light": spot.light,
    "data-role": spot.role,
    "data-sensor": spot.sensor,
    "data-sensed": spot.sensed,
    "data-expected": spot.expected,
    "data-fix": spot.fix ? "true" : null,
    title: `${hoverName(id)}: ${t("sensed")} ${tokenText(spot.sensed)}, ${t("expected")} ${tokenText(spot.expected)}`,
  });
  if (spot.light) {
    node.style.setProperty("--light", spot.light);
    node.classList.toggle("bright", bright(spot.light));
  }
  // The colour printed on the board there, around what lies on it and the light.
  const ground = snap.looks?.ground ? snap.details[snap.looks.ground]?.[id] : null;
  if (ground) {
    node.dataset.ground = ground;
    node.style.setProperty("--ground", lookColour(ground, snap.looks) ?? ground);
    node.title += ` · ${valueText(snap.looks.ground, ground)}`;
  }
  // The number the game's decisions name the piece here by, counted from 1 ("Claim building 13").
  const number = snap.looks?.numbers ? snap.details[snap.looks.numbers]?.[id] : null;
  if (number !== null && number !== undefined) {
    node.append(el("span", { class: "number", text: t("number_on", { n: number + 1 }) }));
    // A piece worn down says its points left above its number (the walk: a building at 5 of
    // its 10 looked whole).
    const worn = snap.looks?.worn ? snap.details[snap.looks.worn]?.[id] : null;
    if (worn) node.append(el("span", { class: "worn", text: t("number_worn", { left: worn[0], full: worn[1] }) }));
  }
  // A long name may break after its dot or its row ("s2.|z11", "r10|c10" where a game names
  // no cells) rather than run into the next square.
  const [head, ...rest] = label.split(/(?<=\.)|(?<=\d)(?=[a-z])/i);
  node.append(el("span", { class: "label" }, head, ...rest.flatMap((part) => [el("wbr"), part])));
  // A mark beside the colour, as the terminal shows it: colour alone fails colour-blind eyes.
  const marked = roleMark(blinkRole(spot));
  if (marked) node.append(el("span", { class: "mark", text: marked, "aria-hidden": "true" }));
  // What the sensors tell there, drawn as the game looks (draw.js).
  const token = tokenElement(spot.sensed, id, snap);
  if (token) node.append(token);
  // Every spot on the simulated table; the camera's on a table whose players enter its board.
  const placeable = placeableSpot(spot);
  if (placeable) {
    node.classList.add("placeable");
    focusable(node); // reached with Tab and played with Enter or Space, as a button is
  }
  node.addEventListener("click", (event) => {
    event.stopPropagation();
    tapSpot(id, spot);
  });
  return node;
}

// A spot named for the pointer's tooltip: "A1", or "A1 · tile" for a spot within a square.
function hoverName(id) {
  const square = squareOf(id);
  const piece = square === id ? "" : wordText(id.slice(square.length + 1)); // "" for a Takeover cell's map
  return piece ? `${placeText(square)} · ${piece}` : placeText(square);
}

// Whether a hand may lay or lift on `spot` here.
function placeableSpot(spot) {
  return (snap.placeable ?? []).includes(spot.sensor);
}

function tapSpot(id, spot) {
  const square = squareOf(id);
  const own = snap.spots[square];
  // A tap on a spot as it should be (a tile under a pawn) in a square whose own piece is to be
  // put right (the pawn to take off): the hand means that piece.
  if (square !== id && !wrongSpot(spot) && own && placeableSpot(own) && wrongSpot(own)) {
    tapSpot(square, own);
    return;
  }
  const placeable = placeableSpot(spot);
  // A tap points at a decision first (the square around a sub-spot holds its decisions),
  // unless the spot is to be put right on the simulated table: then the hand does that.
  if (!(placeable && wrongSpot(spot)) && pointAt(square)) return;
  if (!placeable) return;
  // A reed feels a piece or none: a tap lays or lifts it. A camera sees which card or die: a
  // tap offers what the game may see there next.
  if (spot.sensor === "reed") post("place", { spot: id });
  else choose(id);
}

// What a hand may lay on a camera spot (of the simulated table, or of a table without a camera
// whose players enter what it would read): what the game expects there,
// what its next step may leave there (a card dealt, a die placed), or nothing.
async function choose(id) {
  const reply = await post("place", { list: true });
  const spot = reply.ok ? reply.spots[id] : undefined;
  if (!spot) return;
  // Each offer says why: put back as the game has it, what its next step leaves, or lifted.
  const offers = [];
  const offer = (token, why, secret) => {
    if (!offers.some((o) => o.token === token && o.secret === secret)) offers.push({ token, why, secret });
  };
  if (spot.shows !== spot.expected) offer(spot.expected, "expected");
  // A card laid face down from the player's hand: which one is theirs to choose (`secret`),
  // or any of them, as the simulated hands would lay it.
  for (const token of spot.next) {
    for (const card of spot.secret ?? []) offer(token, "secret", card);
    offer(token, "next");
  }
  if (spot.shows !== null) offer(null, "lift");
  const lay = (token, secret) => {
    $("chooser").close();
    post("place", token === null ? { spot: id, lift: true } : { spot: id, token, ...(secret ? { secret } : {}) });
  };
  $("chooser-title").textContent = t("lay_on", { spot: placeText(squareOf(id)) }); // "r0c2", not "r0c2.map"
  // Beside the cards of the hand, the game's next step is one of them, unseen.
  const said = (why) => t(why === "next" && spot.secret?.length ? "offer_any" : `offer_${why}`);
  $("chooser-tokens").replaceChildren(...(offers.length
    ? offers.map(({ token, why, secret }) => el("button", {
      type: "button", class: "choice", "data-token": token ?? "", "data-why": why,
      "data-secret": secret ?? null, title: said(why), onclick: () => lay(token, secret),
    }, ...[token === null ? null : tokenElement(secret ?? token, id, snap)].filter(Boolean),
    el("span", { text: token === null ? t("empty") : tokenText(secret ?? token) }),
    el("small", { text: said(why) })))
    : [el("p", { text: t("nothing_to_lay") })]));
  $("chooser").showModal();
}

// The board square a sub-spot "S.piece" is drawn in, else the spot itself.
function squareOf(id) {
  const square = id.slice(0, Math.max(0, id.lastIndexOf(".")));
  return snap.board_rows.some((row) => row.includes(square)) ? square : id;
}

let boardStarted = null; // when the game the board shows began (`started`)

function drawBoard() {
  const spots = snap.spots;
  const onBoard = new Set(snap.board_rows.flat());
  const board = $("board");
  board.style.setProperty("--cols", Math.max(...snap.board_rows.map((row) => row.length)));
  // Drawn afresh: the spot a keyboard was on gets the focus back.
  const focused = document.activeElement?.closest?.("#table [data-spot]")?.dataset.spot;
  board.replaceChildren();
  const squares = {};
  // A caption over the rows a game names ("Player 2's play zone"), in a grid row of its own.
  let line = 0;
  snap.board_rows.forEach((row) => {
    const caption = row.length ? patternMatch("rows", row[0]) : undefined;
    if (caption) {
      line += 1;
      const node = el("div", { class: "row-caption", text: caption });
      node.style.gridArea = `${line} / 1 / ${line + 1} / -1`;
      board.append(node);
    }
    line += 1;
    row.forEach((id, c) => {
      squares[id] = spotElement(id, spots[id] ?? { sensor: "unsensed", light: "#000000" }, "square");
      squares[id].append(el("div", { class: "subs" }));
      // Placed in its own row and column: a shorter row (a player's hand) never flows into the next.
      squares[id].style.gridArea = `${line} / ${c + 1}`;
      board.append(squares[id]);
    });
  });
  const others = $("other-spots");
  others.replaceChildren();
  for (const [id, spot] of Object.entries(spots)) {
    if (onBoard.has(id)) continue;
    // A sub-spot "S.piece" is drawn inside its square S.
    const dot = id.lastIndexOf(".");
    const square = dot > 0 ? squares[id.slice(0, dot)] : undefined;
    // Named in words: "8.hawkmoth" is the Hawk Moth's spot on square 8.
    const piece = wordText(id.slice(dot + 1));
    if (square) square.querySelector(".subs").append(spotElement(id, spot, "sub", piece));
    else others.append(squares[id] = spotElement(id, spot, "sub other"));
  }
  markPointing(squares);
  if (focused) document.querySelector(`#table [data-spot="${CSS.escape(focused)}"]`)?.focus();
  // A board wider than the screen (a phone) scrolls sideways: say so, or half of it goes unseen.
  $("board-more").hidden = board.scrollWidth <= board.clientWidth + 1;
  if (snap.started !== boardStarted) board.scrollLeft = 0; // a new game: from its first column
  boardStarted = snap.started;
  keepInView(board);
}

// What a hand must do on a board wider than the screen (a piece to put right, the move the table
// shows, else the few pieces the player may move) is scrolled into view when it first lights: on
// a phone, Hostile Takeover's 12 columns show 7, and the computer's move, or the player's own
// pawn at a first turn, may lie past the edge. The player's own swipes are kept.
const IN_VIEW = [
  "[data-fix]", '[data-role^="shown_"]', '[data-role="changed"]', ":scope:not(.many-starts) .pointable",
];
let inView = "";
let revealLit = false; // a hint's move tapped: shown wherever the page is scrolled
function keepInView(board) {
  const groups = IN_VIEW.map((selector) => [...board.querySelectorAll(selector)]);
  const nodes = groups.find((found) => found.length) ?? []; // put right first, then the move
  const key = groups.flat().map((node) => `${node.dataset.spot}=${node.dataset.role}`).join(" ");
  if (key === inView) return;
  inView = key;
  if (revealLit && nodes.length) {
    revealLit = false;
    nodes[0].scrollIntoView({ block: "nearest", inline: "nearest" });
    return;
  }
  if (!nodes.length || board.scrollWidth <= board.clientWidth + 1) return;
  const view = board.getBoundingClientRect();
  const boxes = nodes.map((node) => node.getBoundingClientRect());
  const left = Math.min(...boxes.map((box) => box.left));
  const right = Math.max(...boxes.map((box) => box.right));
  if (left >= view.left && right <= view.right) return;
  board.scrollLeft += (left + right) / 2 - (view.left + view.right) / 2;
}

// -- the side panels -------------------------------------------------------------------

function drawTurn() {
  document.documentElement.dataset.game = snap.game;
  document.documentElement.dataset.version = snap.version; // which snapshot the page shows
  document.documentElement.dataset.toMove = snap.to_move ?? "";
  const title = snap.games[snap.game]?.titles?.[lang] ?? snap.title;
  $("title").textContent = title;
  document.title = `${title} · smartboard`;
  loadWords(snap.game);
  // Whose turn it is and what the table waits for, in words (words.js).
  // Over, the header says so and who won: on a phone the result box lies a screen below.
  const over = snap.result ? [t("over"), resultLine(snap.result)] : [];
  // A seat played at another table of the room: this table's players wait (the phase's
  // prompt speaks to that seat's players, who are not here).
  const seat = snap.players?.indexOf(snap.to_move) + 1;
  const away = !snap.result && seat > 0 && snap.room?.elsewhere?.includes(seat);
  const waiting = away ? t("header_elsewhere", { player: playerName(snap.to_move) }) : headerText(snap);
  const parts = [turnText(snap.turn), ...over, waiting];
  if (snap.paused) parts.push(t("paused"));
  $("turn").textContent = parts.filter(Boolean).join(" · ");
  $("pause").textContent = t(snap.paused ? "resume" : "pause");
  $("message").textContent = messageText(snap) || (snap.sim ? t("sim") : "");
}

// The turn as the game counts it, under the name its details give it: Multipli Potion counts
// the actions played, not turns, and "Turn 35" would say it counts turns.
function turnText(turn) {
  const turnName = snap.details?.turn !== undefined ? lookup("details", "turn") : null;
  return turnName ? `${turnName} ${turn}` : t("turn", { turn });
}

// What the game's last event came to (a combat, a claim): a detail the game's `news` words
// phrase, shown from the moment it changes until another does. Once the turn has moved on it
// says which turn it was and is drawn fainter, or an old claim reads as news.
const newsSeen = {};
let newsKey = null;
let newsTurn = null;
function drawNews() {
  // A template by detail ("last_combat"), or by one of its events ("last_event:venom").
  const keys = new Set(Object.keys(patterns("news")).map((key) => key.split(":")[0]));
  for (const key of keys) {
    const now = JSON.stringify(snap.details?.[key] ?? null);
    if (key in newsSeen && newsSeen[key] !== now && now !== "null") [newsKey, newsTurn] = [key, snap.turn];
    newsSeen[key] = now;
  }
  const said = newsKey ? newsText(newsKey, snap.details?.[newsKey]) : null;
  const old = Boolean(said) && snap.turn !== newsTurn;
  $("news").hidden = !said;
  $("news").classList.toggle("old", old);
  $("news").textContent = old ? t("news_then", { turn: turnText(newsTurn), said }) : said ?? "";
}

// An event's detail in words, where the game's news say it; else null.
function newsText(key, value) {
  if (!value || typeof value !== "object") return null;
  const template = lookup("news", `${key}:${value.event}`) ?? lookup("news", key);
  return template === undefined ? null : fill(template, (name) => value[name]);
}

// Against the table, the one person at the page is told how it went for them (the walk:
// "Winner: Player 2" alone never said the player had lost).
function verdictLine(snap) {
  const people = snap.players.filter((_, i) => !snap.computer?.[i]);
  const winners = snap.result?.winners;
  if (people.length !== 1 || people.length === snap.players.length || !Array.isArray(winners)) return "";
  if (!winners.length) return "";
  return t(winners.includes(people[0]) ? "you_won" : "you_lost");
}

// "Winner: Gran Bwa", "A draw".
function resultLine(result) {
  const winners = result.winners;
  if (!Array.isArray(winners)) return "";
  if (!winners.length) return t("draw");
  return t(winners.length === 1 ? "winner" : "winners", { names: winners.map(playerName).join(", ") });
}

function drawResult() {
  const box = $("result");
  box.hidden = !snap.result;
  if (!snap.result) return;
  const line = resultLine(snap.result);
  const verdict = verdictLine(snap);
  // Why, where the game says (Akuma: a line of three, or a board cleared: AK-9).
  const why = snap.result.ended ? valueText("ended", snap.result.ended) : "";
  // Where the game counts points, each player's, the highest first (the walk: a Voodoo win
  // said no more than "Winner: Gran Bwa").
  const scores = Object.entries(snap.result.scores ?? {}).sort(([, a], [, b]) => b - a);
  box.replaceChildren(el("h2", { text: t("over") }),
    ...(verdict ? [el("p", { class: "verdict", text: verdict })] : []),
    el("p", { text: why ? t("result_why", { line, why }) : line }),
    ...(scores.length ? [el("p", { class: "scores", text: t("result_scores", {
      // A team's score under its seats' names joined ("mamy_wata+gran_bwa", BV-12), with what
      // the game's end added (the walk: Voodoo's majorities took 12 to 21, unexplained).
      scores: scores.map(([side, n]) => {
        const score = `${side.split("+").map(playerName).join(" + ")} ${n}`;
        const bonus = snap.result.end_bonus?.[side] ?? 0;
        return bonus > 0 ? t("result_score_bonus", { score, bonus }) : score;
      }).join(" · "),
    }) })] : []));
}

// The simulated table's hand of a person (`secrets`): the cards they hold or laid face down,
// which on a real table they would look at in their hand. Several people at one page take
// turns: the hand of the one to move, or laying, shows.
function drawSecrets() {
  const secrets = snap.secrets ?? {};
  let seats = Object.keys(secrets).filter((seat) => secrets[seat].length > 0);
  if (seats.length > 1) seats = seats.filter((seat) => seat === (snap.lay_hint_for ?? snap.to_move));
  $("secrets").hidden = seats.length === 0;
  if (seats.length === 0) return;
  const [seat] = seats;
  $("secrets-title").textContent = t("secrets_title", { player: playerName(seat) });
  $("secrets-list").replaceChildren(...secrets[seat].map(([spot, token]) => el("li", {},
    // A card in the hand that a decision plays, tapped: those decisions (the walk: a tap did
    // nothing). One laid at a chance node (Mightymania's set-up) is laid by a tap on its spot.
    spot || !handPlays(token).length ? tokenElement(token, spot, snap) ?? "" : el("button", {
      type: "button", class: "in-hand", "data-token": token, title: t("play_from_hand"),
      onclick: () => pickFromHand(token),
    }, tokenElement(token, spot, snap) ?? tokenText(token)),
    el("span", { class: "where", text: spot ? spotText(spot) : t("in_hand") }))));
}

function drawFixes() {
  const fixes = Object.entries(snap.spots).filter(([, spot]) => handFix(spot));
  $("fixes").hidden = fixes.length === 0;
  $("fixes").querySelector("ul").replaceChildren(
    ...fixes.map(([id, spot]) =>
      el("li", { "data-spot": id, text: fixText(id, spot) })),
  );
}

// Decisions taken by pointing at the board are listed only in a folded list of their own, for
// those who would rather read or use a keyboard: a Voodoo turn has over a thousand. The rest are
// buttons, grouped by kind when many, each group folded unless small.
const FEW_ACTIONS = 12;
let actionsKey = null;
const openKinds = new Set();

function actionButton(action) {
  return el("button", {
    type: "button",
    "data-action": action.id,
    "data-candidate": snap.candidates.includes(action.id) ? "true" : null,
    text: actionText(action.id),
    onclick: () => post("act", { id: action.id }),
  });
}

function groupedActions(actions) {
  if (actions.length <= FEW_ACTIONS) return actions.map(actionButton);
  const groups = new Map();
  for (const action of actions) {
    const kind = action.id.split(":")[0];
    groups.set(kind, [...(groups.get(kind) ?? []), action]);
  }
  return [...groups].map(([kind, inKind]) => {
    const open = inKind.length <= FEW_ACTIONS || openKinds.has(kind);
    const group = el("details", { "data-kind": kind, open: open || null },
      el("summary", { text: `${kindText(kind)} (${inKind.length})` }),
      el("div", { class: "group" }, ...inKind.map(actionButton)));
    group.addEventListener("toggle", () => {
      if (group.open) openKinds.add(kind);
      else openKinds.delete(kind);
    });
    return group;
  });
}

function drawActions() {
  $("actions-box").hidden = snap.actions.length === 0;
  const key = JSON.stringify([snap.actions.map((a) => a.id), snap.candidates, lang]);
  if (key === actionsKey) return; // redrawn only when they change: a search being typed stays
  actionsKey = key;
  const pointed = pointedActions();
  // Buttons for the rest, but those to find: neither buttons nor listed (`pointedActions`).
  const buttons = snap.actions.filter((a) => !a.find && !pointed.includes(a));
  $("actions").replaceChildren(...groupedActions(buttons));
  $("all-actions-box").hidden = pointed.length === 0;
  $("all-actions-count").textContent = String(pointed.length);
  $("all-actions").replaceChildren(...groupedActions(pointed));
  $("actions-filter").hidden = pointed.length <= FEW_ACTIONS;
  filterActions();
}

// On a phone the decisions and the dice lie below the board: while they are out of view a pill
// at the foot of the screen says what waits there, as the thinking pill does for the table.
function drawBelow() {
  const buttons = $("actions").querySelectorAll(":scope > button, .group > button").length;
  const roll = !$("roll-form").hidden;
  const text = buttons === 1 ? t("below_one") : buttons > 1 ? t("below_many", { count: buttons })
    : roll ? t("below_dice") : "";
  const box = $(buttons ? "actions-box" : "dice-box");
  const below = !box.hidden && box.getBoundingClientRect().top > window.innerHeight;
  $("below-pill").hidden = !text || !below || !$("thinking-pill").hidden;
  $("below-pill-text").textContent = text;
}

function filterActions() {
  const words = $("actions-filter").value.trim().toLowerCase();
  for (const group of $("all-actions").querySelectorAll("details")) {
    let shown = 0;
    for (const choice of group.querySelectorAll("button")) {
      choice.hidden = Boolean(words) && !choice.textContent.toLowerCase().includes(words)
        && !choice.dataset.action.includes(words);
      shown += !choice.hidden;
    }
    group.hidden = shown === 0;
    if (words && shown > 0 && shown <= FEW_ACTIONS) group.open = true;
  }
}

function dieFace(value, title) {
  const die = dieElement(value, snap.dice_wanted?.kind ?? null, snap.looks);
  die.title = title;
  return die;
}

function drawDice() {
  const wanted = snap.dice_wanted;
  const seen = snap.dice_seen ?? [];
  // No empty "Dice" heading: the box shows once it has something to show (dice wanted or
  // seen, the camera's word, a roll to correct or held unsure).
  $("dice-box").hidden = !wanted && !snap.camera && seen.length === 0 && !snap.correctable
    && !snap.dice_unsure;
  // A misread roll is corrected until something is played on it, and only then; the example
  // has as many values as the roll read ("e.g. 7" for one d12, not "e.g. 3 5"), and faces
  // named as they are typed where a die shows words (Akuma's Miraculous die: "e.g. venom").
  $("correct-form").hidden = !snap.correctable;
  const named = seen.some((die) => Number.isNaN(Number(die.value)));
  $("correct-form").querySelector("input").placeholder = named // not read as a roll
    ? t("correct_example_faces", { faces: seen.map((die) => die.value).join(" ") })
    : t(seen.length === 1 ? "correct_example_one" : "correct_example");
  $("dice-seen").replaceChildren(
    seen.length ? t("seen") : snap.camera ? t("nothing_seen") : "",
    ...seen.map((die) => dieFace(die.value, `${Math.round(die.confidence * 100)} %`)),
  );
  drawUnsure(); // unsure.js
  $("roll-form").hidden = !wanted || Boolean(snap.room?.rolled_elsewhere); // room.js
  $("roll-random").hidden = !snap.sim;
  const key = JSON.stringify(wanted);
  if (key === diceKey) return;
  diceKey = key;
  if (!wanted) return;
  // In --sim the form's Roll button rolls them (one way: a die to tap beside it read as a
  // second Roll button).
  $("dice-wanted").replaceChildren(t("wanted", { dice: diceText(wanted) }));
  // Each die starts unset, and the form is not sent until every one is set: a form left
  // untouched must not enter a roll of first faces.
  $("dice-inputs").replaceChildren(
    ...Array.from({ length: wanted.count }, (_, i) =>
      el("select", { name: `die${i}`, "aria-label": t("unsure_die", { die: i + 1 }), required: true },
        el("option", { value: "", text: "–" }),
        ...wanted.faces.map((face) => el("option", { value: JSON.stringify(face), text: wordText(String(face)) })))),
  );
}

// A detail's value, in words: `key` is the name of the field that holds it (words.js).
function detailValue(value, key) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "boolean") return t(value ? "yes" : "no");
  if (typeof value === "number" && snap.looks?.from_one?.includes(key)) return String(value + 1);
  if (Array.isArray(value)) {
    if (value.length === 0) return t("none");
    if (value.every((item) => item === null || typeof item !== "object")) {
      return value.map((item) => (item === null ? "–" : valueText(key, item))).join(", ");
    }
    if (value.every((item) => item && typeof item === "object" && !Array.isArray(item))) {
      // Rows of the same fields (Hostile Takeover's buildings): a table, a column a field.
      const keys = [...new Set(value.flatMap((row) => Object.keys(row)))];
      return el("table", { class: "rows" },
        el("thead", {}, el("tr", {}, ...keys.map((column) => el("th", { text: detailName(column) })))),
        el("tbody", {}, ...value.map((row) =>
          el("tr", {}, ...keys.map((column) => el("td", {}, detailValue(row[column], column)))))));
    }
    return el("ul", { class: "items" }, ...value.map((item) => el("li", {}, detailValue(item, key))));
  }
  if (typeof value === "object") {
    // Keys that are seats or spots hold the parent's kind of value; others are fields.
    return el("dl", {}, ...Object.entries(value).flatMap(([inner, held]) => {
      const field = lookup("details", inner) !== undefined ? inner : key;
      return [el("dt", { text: detailName(inner) }), el("dd", {}, detailValue(held, field))];
    }));
  }
  return valueText(key, value);
}

function drawDetails() {
  // What the board draws (the stacks, the printed colours, the numbers) is not listed again,
  // nor the rules' bookkeeping.
  const drawn = [snap.looks?.stacks, snap.looks?.ground, snap.looks?.numbers].filter(Boolean);
  const hidden = new Set([...drawn, ...(snap.inner_details ?? [])]);
  const listed = Object.entries(snap.details).filter(([key]) => !hidden.has(key));
  $("details").replaceChildren(...listed.flatMap(([key, value]) =>
    [el("dt", { text: detailName(key), title: snap.detail_help?.[key] ?? "" }),
     el("dd", { "data-detail": key }, newsText(key, value) ?? detailValue(value, key))]));
}

function drawCamera() {
  $("camera-box").hidden = !snap.camera;
  if (!snap.camera) return;
  $("camera").hidden = false;
  $("camera").src = `/api/camera.jpg?v=${snap.version}`;
  $("camera-status").textContent = [snap.camera.state, snap.camera.reason].filter(Boolean).join(": ");
}

// A move of the log under the name of the seat that decided it, the table's said so ("Ladybug
// (the table): Roll one die"); once only where its words name it; a chance outcome as it is,
// or as it fell before a take-back, not thrown again (`log_fallen`): said so for good, where
// the note saying it goes with the next move.
function logText(i) {
  const id = snap.log[i];
  const by = snap.log_by?.[i];
  const move = snap.log_fallen?.includes(i) ? t("log_as_fallen", { move: actionText(id) }) : actionText(id);
  if (!by || ownMove(by, id)) return move;
  const table = Boolean(snap.computer?.[snap.players.indexOf(by)]);
  return t(table ? "log_by_table" : "log_by", { player: playerName(by), move });
}

// The moves in order, numbered as played; where moves were taken back (`taken_back`: after
// the first `at`), a mark says how many and which, so that the log tells what happened.
function drawLog() {
  const marks = new Map((snap.taken_back ?? []).map((mark) => [mark.at, mark]));
  const items = [];
  const entry = (i) => el("li", { "data-action": snap.log[i], value: String(i + 1), text: logText(i) });
  for (let i = 0; i <= snap.log.length; i++) {
    const mark = marks.get(i);
    if (mark) {
      const { count } = mark;
      const all = mark.moves.map((id) => actionText(id)).join(t("moves_sep"));
      // Many (take-backs in a row fold into one mark): the first and a count, the rest on hover.
      const moves = count > TAKEN_LISTED ? stepsText(mark.moves) : all;
      items.push(el("li", {
        class: "taken", "data-taken": String(count), title: all,
        text: t(count === 1 ? "taken_back_one" : "taken_back_more", { count, moves }),
      }));
    }
    if (i === snap.log.length) break;
    const run = chanceRun(i, marks);
    if (run > 1) {
      // A run of chance alike (Baron Voodoo's 48 set-up dice), once over, folds into one
      // line: the players' moves are not pushed far down (the walk). It is numbered by its
      // first and last moves ("1–48."), so the next, 49, follows on.
      const kind = snap.log[i].split(":")[0];
      const what = lookup("kinds", kind) ?? readable(kind);
      items.push(el("li", { class: "run", value: String(i + 1) }, el("details", {},
        el("summary", { text: t("log_run", { first: i + 1, last: i + run, what, count: run }) }),
        el("ol", { start: String(i + 1) }, ...Array.from({ length: run }, (_, k) => entry(i + k))))));
      i += run - 1;
    } else {
      items.push(entry(i));
    }
  }
  $("log").replaceChildren(...items);
  $("log").scrollTop = $("log").scrollHeight;
}

const TAKEN_LISTED = 4; // a take-back mark's moves listed in full up to this many

// How many of the log's entries from `i` are chance's of one kind, folded in the log: a run
// of at least LOG_RUN, over (a later entry follows), with no take-back inside; else 1.
const LOG_RUN = 6;
function chanceRun(i, marks) {
  const kind = snap.log[i].split(":")[0];
  let end = i;
  while (end < snap.log.length && !snap.log_by?.[end] && snap.log[end].split(":")[0] === kind
    && (end === i || !marks.has(end))) end++;
  return end - i >= LOG_RUN && end < snap.log.length ? end - i : 1;
}

// -- game set-up -----------------------------------------------------------------------

// `game`: the option names one of that game's seats, offered as the form numbers them, from 1;
// its value stays the seat's index, from 0.
// `choices`: [value, its name] pairs, for a select.
function optionInput(name, value, game = null, choices = null, bounds = null) {
  if (choices) {
    return el("select", { name, "data-kind": typeof value === "number" ? "number" : "text" },
      ...choices.map(([choice, text]) => el("option", { value: String(choice), text, selected: choice === value ? "" : null })));
  }
  if (game) {
    return el("select", { name, "data-kind": "seat" }, ...(snap.games[game]?.seats ?? []).map((seat, i) =>
      el("option", { value: String(i), text: seatLabel(seat, i, game), selected: i === value ? "" : null })));
  }
  if (typeof value === "boolean") {
    return el("input", { type: "checkbox", name, checked: value ? "" : null, "data-kind": "bool" });
  }
  const kind = typeof value === "number" ? "number" : "text";
  const [min, max] = bounds ?? [];
  return el("input", {
    type: kind, name, value: String(value), "data-kind": kind,
    min: min ?? null, max: max ?? null, required: kind === "number" ? "" : null,
  });
}

function drawOptions() {
  const name = $("new-game").value;
  // The game on the table offers its own options again; another game, its defaults.
  const options = { ...snap.games[name]?.options, ...(name === snap.game ? snap.options : {}) };
  const seatOptions = snap.games[name]?.seat_options ?? [];
  const choices = snap.games[name]?.option_choices ?? {};
  const bounds = snap.games[name]?.option_bounds ?? {};
  const help = snap.games[name]?.option_help?.[lang] ?? {};
  const advanced = snap.games[name]?.advanced_options ?? [];
  const field = ([key, value]) =>
    el("label", { "data-option": key }, el("span", { text: optionName(name, key) }), " ",
      optionInput(key, value, seatOptions.includes(key) ? name : null,
        choices[key]?.map((choice) => [choice, optionChoice(name, key, choice)]) ?? null, bounds[key] ?? null),
      // What a field takes, where its name does not say ("red,yellow"; a file's path).
      ...(help[key] ? [el("small", { class: "option-help", text: help[key] })] : []));
  const entries = Object.entries(options);
  const more = entries.filter(([key]) => advanced.includes(key));
  $("new-options").replaceChildren(...entries.filter(([key]) => !advanced.includes(key)).map(field),
    ...(more.length ? [el("details", { class: "more-options" },
      el("summary", { text: t("more_options") }), ...more.map(field))] : []));
  showOptions();
  drawNames(); // a name field per seat (past.js)
  drawSeats(); // who plays each seat: a player or the table (computer.js)
}

// An option offered only beside another's value (two teams of two at 4 players) is hidden, and
// left to its default, while that value is not chosen.
function showOptions() {
  const shownWith = snap.games[$("new-game").value]?.option_shown_with ?? {};
  const chosen = chosenOptions();
  for (const label of $("new-options").querySelectorAll("label[data-option]")) {
    const [other, value] = shownWith[label.dataset.option] ?? [];
    label.hidden = other !== undefined && chosen[other] !== value;
  }
}

function drawSetup() {
  const key = JSON.stringify([snap.games, snap.game, lang]);
  if (key === setupKey) return;
  setupKey = key;
  $("new-game").replaceChildren(...Object.entries(snap.games).map(([name, game]) =>
    el("option", { value: name, text: game.titles?.[lang] ?? game.title, selected: name === snap.game ? "" : null })));
  drawOptions();
}

function chosenOptions() {
  const options = {};
  for (const input of $("new-options").querySelectorAll("input, select")) {
    if (input.closest("label")?.hidden) continue;
    const kind = input.dataset.kind;
    options[input.name] = kind === "bool" ? input.checked
      : kind === "number" || kind === "seat" ? Number(input.value) : input.value;
  }
  return options;
}

// -- wiring ----------------------------------------------------------------------------

// A spot's role as the legend says it: a blinking spot the game itself lights (a Multipli
// Potion's forgotten capture, to be made) keeps its role, not "to put right" (the walk).
function blinkRole(spot) {
  return spot.fix && !spot.role ? "fix" : spot.role;
}

function roleMark(role) {
  return role ? snap.marks?.[role.split("@")[0]] ?? "" : "";
}

// What each colour lit on the board now means: the table's own roles in words, a game's roles
// (a piece, a player) by their names.
function drawLegend() {
  // One entry a role: lit at several levels ("blue@0.25", a Takeover spawn; "blue@1.00", a
  // building at full points), it is said once with what its brightness tells, not once a level.
  const lit = new Map();
  for (const [id, spot] of Object.entries(snap.spots)) {
    const role = blinkRole(spot);
    // A sub-spot's role may be lit by its square's LEDs (a Hostile Takeover cell's map tile).
    const light = spot.light ?? snap.spots[squareOf(id)]?.light;
    if (!role || !light || light === "#000000") continue;
    const [base, level] = role.split("@");
    const bright = level === undefined ? 1 : Number(level);
    const seen = lit.get(base);
    const levels = Boolean(seen?.levels) || level !== undefined;
    if (!seen || bright > seen.bright) lit.set(base, { light, bright, levels });
    else seen.levels = levels;
  }
  $("legend").replaceChildren(...[...lit].map(([role, { light, levels }]) => el("li", {},
    el("span", { class: "swatch", style: `background: ${light}`, text: roleMark(role) }),
    levels ? lookup("roles", `${role}@`) ?? t("role_levels", { role: roleName(role) }) : roleName(role))));
  $("legend-box").hidden = lit.size === 0;
}

// The table's own trouble (a dead link, a damaged journal, a full disk): above everything.
function drawAlerts() {
  const alerts = snap.alerts || [];
  $("alerts").replaceChildren(...alerts.map(({ text, key, params }) =>
    el("li", { "data-key": key }, tableText(text, key, roomAlertParams(key, params))))); // room.js
  $("alerts").hidden = alerts.length === 0;
}

function render() {
  if (!snap) return;
  drawPast(); // while a past game is replayed, snap is its position (past.js)
  drawDiceRecord(); // in the page's language (dicestats.js)
  drawAlerts();
  drawRoom(); // linked tables (room.js)
  drawTurn();
  drawNews();
  drawBoard();
  drawLegend();
  drawComputer(); // the table thinking, the hint (computer.js)
  drawResult();
  drawUndo(); // undo.js
  drawLayOut(); // the simulated table lays out what chance brings (undo.js)
  drawFixes();
  drawSecrets();
  // help.js; the table's turn (computer.js), another table's (room.js)
  // While pieces are to be put right (the header's line), that comes first (the walk: "put the
  // akuma on 5" above, "roll" under What to do now). Over, nothing comes next.
  const fixing = Object.values(snap.spots).some(handFix);
  // Paused, no move can be made: what the game's phase asks waits (the walk: a player did it).
  const paused = snap.paused && !snap.result ? t("now_paused") : null;
  const instead = paused ?? tableTurnHelp() ?? roomTurnHelp(); // which say what to do themselves
  // The table's move waits behind the pieces to put right too (the walk: "carry out Blue's
  // move" under "take the pawn off F4").
  drawPhaseHelp(snap, lang, instead, fixing && !paused && !snap.result ? t("now_fix_first") : null);
  drawActions();
  drawPointing();
  drawDice();
  drawBelow();
  drawDetails();
  drawCamera();
  drawLog();
  drawTools(); // the camera tools follow the game's pause (tools.js)
  if (!replaying) drawSetup();
}

function translate() {
  document.documentElement.lang = lang;
  $("lang").value = lang;
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  $("actions-filter").placeholder = t("find_decision");
  $("actions-filter").setAttribute("aria-label", t("find_decision"));
  drawSound(); // sound.js
  diceKey = null;
  actionsKey = null; // decisions and options are named in the language
  setupKey = null;
  render();
}

function parseValues(text) {
  const values = text.trim().split(/[\s,]+/).filter(Boolean);
  return values.map((value) => (/^\d+$/.test(value) ? Number(value) : value));
}

let drawing = false; // a snapshot waits for the next frame to be drawn

function connect() {
  const events = new EventSource("/api/events");
  events.onmessage = (event) => {
    const live = JSON.parse(event.data);
    $("offline").hidden = true;
    if (unanswered) showError("");
    unanswered = false;
    soundCues(live); // sound.js
    followDice(live); // the dice record, fetched again after a roll (dicestats.js)
    if (keptAside(live)) return; // a past game is on the board (past.js)
    // A place tapped in another game or position is no longer the player's choice.
    if (snap && (live.game !== snap.game || live.log.length !== snap.log.length)) pointFrom = handPick = null;
    snap = live;
    // Drawn once a frame: a move sends several snapshots (each sensor as it settles).
    if (drawing) return;
    drawing = true;
    requestAnimationFrame(() => {
      drawing = false;
      render();
    });
  };
  events.onerror = () => { $("offline").hidden = false; };
}

$("lang").addEventListener("change", () => {
  lang = $("lang").value;
  localStorage.setItem("lang", lang);
  translate();
});
$("pause").addEventListener("click", () => post(snap && snap.paused ? "resume" : "pause"));
$("confirm").addEventListener("click", () => post("confirm"));
$("roll-random").addEventListener("click", () => post("roll"));
$("actions-filter").addEventListener("input", filterActions);
$("roll-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const values = [...$("dice-inputs").querySelectorAll("select")].map((s) => JSON.parse(s.value));
  post("roll", { values });
});
$("correct-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const values = parseValues(event.target.values.value);
  if (values.length === 0) showError(t("bad_values"));
  else post("correct", { values });
});
$("new-game").addEventListener("change", drawOptions);
$("new-options").addEventListener("input", showOptions);
$("new-seats").addEventListener("change", drawDiceChoice);
// Scrolled into view or out of it, the decisions and the dice tell the pill again.
const belowObserver = new IntersectionObserver(() => drawBelow());
belowObserver.observe($("actions-box"));
belowObserver.observe($("dice-box"));
$("below-pill").addEventListener("click", () => {
  const box = $("actions").querySelector("button") ? $("actions-box") : $("dice-box");
  box.scrollIntoView({ behavior: "smooth", block: "start" });
});
$("new-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const abandon = Boolean(snap && !snap.result);
  if (abandon && !window.confirm(t("abandon"))) return;
  const reply = await post("new", {
    game: $("new-game").value, options: chosenOptions(), names: chosenNames(), abandon,
    computer: chosenComputer(), hints: $("new-hints").checked ? "on" : "off",
    computer_dice: chosenComputer().length ? $("new-dice").value : undefined,
  });
  // The new game's board, not the form left behind at the foot of the page.
  if (reply.ok) window.scrollTo({ top: 0, behavior: "smooth" });
});
// Read, it is tapped away.
$("error").addEventListener("click", () => showError(""));
$("unsure-picture").addEventListener("error", () => showUnsurePicture(false));
$("camera").addEventListener("error", () => {
  $("camera").hidden = true;
  $("camera-status").textContent = t("camera_none");
});

translate();
connect();
