// The table as a player (controller/computer.py): its thinking shown, the hint asked for and
// its alternatives listed, and in the new-game form who plays each seat, a player or the table.
"use strict";

const ALIKE_POINTS = 2; // chances of winning this close are the playouts' noise, not a judgement

function levelName(level) {
  return t(`level_${level}`);
}

// While a seat the table plays is to move: its level, and once it has chosen, its move (the
// one decision it then offers). Null on a person's turn, or when the table could not think and
// the players make its move themselves.
function tableTurn() {
  // Dice of a seat the table plays, thrown by a hand in the tray (`--computer-dice hand`).
  const roller = snap.dice_wanted?.roller ?? null;
  const rollLevel = roller === null ? null : snap.computer?.[snap.players.indexOf(roller)];
  if (rollLevel && snap.computer_dice !== "table" && !snap.result) {
    return { player: playerName(roller), level: levelName(rollLevel), roll: true };
  }
  const level = snap.computer?.[snap.players.indexOf(snap.to_move)];
  if (!level || snap.result || snap.note?.key === "computer_failed") return null;
  const thinking = Boolean(snap.thinking) && !snap.thinking.hint;
  const id = !thinking && snap.actions.length === 1 ? snap.actions[0].id : null;
  // Its player named once, where the move's words begin with the name (words.js).
  const own = id ? ownMove(snap.to_move, id) : null;
  return { player: playerName(snap.to_move), level: levelName(level), thinking, move: id && actionText(id), own };
}

// What to do now while the table's seat is to move (help.js shows it instead of the phase's
// help, which speaks to the player to move).
function tableTurnHelp() {
  const turn = tableTurn();
  if (!turn) return null;
  if (turn.roll) return t("now_table_roll", turn);
  if (!turn.move) return t("now_table_thinking", turn);
  return turn.own ? t("now_table_move_own", turn) : t("now_table_move", turn);
}

function drawComputer() {
  const thinking = snap.thinking;
  // The bar above the board: the table thinking, then its move to carry out, until it is; on
  // a person's turn, the seats it plays.
  const turn = tableTurn();
  const seats = snap.result ? [] : (snap.computer ?? []).flatMap((level, i) => level
    ? [t("table_level", { player: playerName(snap.players[i]), level: levelName(level) })] : []);
  // The people's seats named beside the table's: nothing else tells a player which is theirs,
  // nor, named, which seat of the game's (the walk: Ana never learnt she was Mamy Wata).
  const yours = snap.players.filter((_, i) => !snap.computer?.[i]).map(seatTitle);
  $("thinking").hidden = !thinking && !turn && seats.length === 0;
  $("thinking-progress").hidden = !thinking;
  if (thinking) $("thinking-progress").value = thinking.fraction;
  $("thinking-text").textContent = thinking?.hint ? t("thinking_hint", { player: playerName(thinking.player) })
    : !turn ? [t("table_seats", { players: seats.join(", ") }),
      ...(yours.length ? [t("your_seats", { players: yours.join(", ") })] : [])].join(" · ")
      : turn.roll ? t("table_roll", turn) : turn.thinking ? t("thinking", turn)
      : turn.own ? t("table_plays_own", turn.own) : turn.move ? t("table_plays", turn) : t("table_seat", turn);
  // While the table thinks, or waits for its move to be carried out, the bar in brief at the
  // foot of the screen once it is scrolled out of view (a phone, at the decisions below the
  // board): the player sees the table is busy wherever they are.
  $("thinking-pill").hidden = !thinking && !turn?.move;
  $("thinking-pill-text").textContent = $("thinking-text").textContent;
  $("thinking-pill-progress").hidden = !thinking;
  if (thinking) $("thinking-pill-progress").value = thinking.fraction;
  // A hint for the player to move: not while the table plays a seat, nor when switched off.
  // A card laid face down is chance to the rules, but its player may ask which (lay_hint_for).
  const seat = snap.players.indexOf(snap.lay_hint_for ?? snap.to_move);
  const human = seat >= 0 && !snap.computer?.[seat];
  $("hint").hidden = !snap.hints || !human || Boolean(snap.result);
  $("hint").disabled = Boolean(thinking);
  // Hints switched on or off for the rest of the game, while some seat is a person's.
  const people = snap.players.some((_, i) => !snap.computer?.[i]);
  $("hints-switch").hidden = !people || Boolean(snap.result) || snap.hints === undefined;
  $("hints-on").checked = Boolean(snap.hints);
  const hint = snap.hint;
  $("hint-box").hidden = !hint;
  if (!hint) return;
  $("hint-title").textContent = t("hint_for", { player: playerName(hint.player) });
  // Moves the board cannot show (which dice to roll, an attack between cards that stay put) light
  // nothing when tapped: the note then points at their buttons instead.
  const shown = hint.choices.some((choice) => snap.actions.some((a) => a.id === choice.id && a.at != null));
  $("hint-note").dataset.i18n = shown ? "hint_share" : "hint_share_buttons";
  // Moves the playouts cannot tell apart (a Takeover tile at set-up: all 49 %) are said to be
  // alike, so that "the best first" is not read as a judgement.
  const chances = hint.choices.map((choice) => choice.chance).filter((chance) => chance !== null);
  const alike = hint.choices.length > 1 && chances.length === hint.choices.length
    && Math.max(...chances) - Math.min(...chances) <= ALIKE_POINTS;
  // Too many moves for the seconds a hint has (a Voodoo turn's hundreds): none tried enough to
  // give a chance. The note says so, in place of the chances it would promise, and the moves
  // go without a "few tries" each.
  const untried = chances.length === 0;
  $("hint-note").textContent = untried
    ? [t(shown ? "hint_tap" : "hint_play_button"), t("hint_untried", { count: hint.iterations })].join(" ")
    : [t($("hint-note").dataset.i18n), ...(alike ? [t("hint_alike")] : [])].join(" ");
  // Each move tapped is lit on the board in turn, as the best was first.
  $("hint-choices").replaceChildren(...hint.choices.map((choice, i) => el("li", {
    "data-action": choice.id,
    class: [i === 0 ? "best" : "", choice.id === hint.lit ? "lit" : ""].join(" ").trim() || null,
    role: "button", tabindex: "0", "aria-pressed": String(choice.id === hint.lit),
    onclick: () => showHinted(choice.id),
    onkeydown: (event) => { if (event.key === "Enter" || event.key === " ") showHinted(choice.id); },
  }, ...(untried ? [] : [el("span", { class: "share", text: winChance(choice) }), " "]),
  actionText(choice.id))));
}

// A move of the hint lit on the board, and brought into view (app.js keepInView): on a phone
// the board may lie a screen above the list.
function showHinted(id) {
  revealLit = id !== snap.hint?.lit; // the move lit already changes nothing to bring into view
  post("hint", { id });
}

// The chance of winning after a move that the table's playouts found (computer.py): more
// telling to a player than the share of the thought, a few per cent each among a hundred moves;
// none for a move tried in too few playouts to say.
function winChance(choice) {
  return choice.chance === null ? t("hint_few") : `${choice.chance} %`;
}

// "Player 1 · Hawk Moth": which seat the table would play, by the name the game gives it.
function seatLabel(seat, i, game) {
  const number = t("player_n", { n: i + 1 });
  const name = seatText(seat, game);
  return name === number ? number : `${number} · ${name}`;
}

// A select per seat of the game chosen: a player, or the table at one of its levels. The game
// on the table offers its own seats again.
function drawSeats() {
  const name = $("new-game").value;
  const seats = snap.games[name]?.seats ?? [];
  const players = $("new-options").querySelector("input[name=players]");
  if (players && !players.dataset.seats) {
    players.dataset.seats = "true";
    players.addEventListener("input", drawSeats);
  }
  const count = Math.min(Math.max(Number(players?.value) || seats.length, 1), seats.length);
  const box = $("new-seats");
  const chosen = [...box.querySelectorAll("select")].map((select) => select.value);
  const kept = box.dataset.game === name ? chosen
    : name === snap.game ? (snap.computer ?? []).map((level) => level ?? "") : [];
  // Hints and the table's dice offered again as the game on the table has them.
  if (box.dataset.game !== name) {
    $("new-hints").checked = name === snap.game ? snap.hints !== false : true;
    $("new-dice").value = snap.computer_dice === "table" ? "virtual" : "hand";
  }
  box.dataset.game = name;
  const levels = snap.levels ?? [];
  box.replaceChildren(el("legend", { text: t("seats_played") }), ...seats.slice(0, count).map((seat, i) =>
    el("label", {}, el("span", { text: seatLabel(seat, i, name) }), " ",
      el("select", { name: `seat${i}`, "data-seat": String(i + 1) },
        el("option", { value: "", text: t("human") }),
        ...levels.map((level) => el("option", {
          value: level, text: t("computer_level", { level: levelName(level) }),
          selected: kept[i] === level ? "" : null,
        }))))));
  drawDiceChoice();
}

// Who throws the table's dice: asked only when the table plays a seat of a game with dice.
function drawDiceChoice() {
  const dice = snap.games[$("new-game").value]?.dice ?? [];
  $("new-dice-label").hidden = chosenComputer().length === 0 || dice.length === 0;
}

// The seats the table is to play, as `smartboard new --computer` takes them: "2:strong".
function chosenComputer() {
  return [...$("new-seats").querySelectorAll("select")]
    .filter((select) => select.value)
    .map((select) => `${select.dataset.seat}:${select.value}`);
}

document.getElementById("hint").addEventListener("click", () => post("hint"));
// Whether the bar is out of view: the pill is shown only then (style.css).
new IntersectionObserver(([entry]) => {
  document.body.dataset.thinkingOut = String(!entry.isIntersecting);
}).observe(document.getElementById("thinking"));
document.getElementById("thinking-pill").addEventListener("click", () => {
  document.getElementById("thinking").scrollIntoView({ behavior: "smooth", block: "start" });
});
document.getElementById("hints-on").addEventListener("change", async (event) => {
  const box = event.target;
  const reply = await post("hints", { hints: box.checked ? "on" : "off" });
  if (!reply.ok) box.checked = !box.checked; // refused: as it was
});
