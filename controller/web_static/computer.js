// The table as a player (controller/computer.py): its thinking shown, the hint asked for and
// its alternatives listed, and in the new-game form who plays each seat, a player or the table.
"use strict";

function levelName(level) {
  return t(`level_${level}`);
}

function drawComputer() {
  const thinking = snap.thinking;
  $("thinking").hidden = !thinking;
  if (thinking) {
    const player = playerName(thinking.player);
    $("thinking-text").textContent = thinking.hint
      ? t("thinking_hint", { player })
      : t("thinking", { player, level: levelName(thinking.level) });
    $("thinking-progress").value = thinking.fraction;
  }
  // A hint for the player to move: not while the table plays a seat, nor when switched off.
  const seat = snap.players.indexOf(snap.to_move);
  const human = seat >= 0 && !snap.computer?.[seat];
  $("hint").hidden = !snap.hints || !human || Boolean(snap.result);
  $("hint").disabled = Boolean(thinking);
  const hint = snap.hint;
  $("hint-box").hidden = !hint;
  if (!hint) return;
  $("hint-title").textContent = t("hint_for", { player: playerName(hint.player) });
  $("hint-choices").replaceChildren(...hint.choices.map((choice, i) => el("li", {
    "data-action": choice.id, class: i === 0 ? "best" : null,
  }, el("span", { class: "share", text: `${Math.round(choice.share * 100)} %` }), " ",
  actionText(choice.id))));
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
  // Hints offered again as the game on the table has them; on for another game.
  if (box.dataset.game !== name) $("new-hints").checked = name === snap.game ? snap.hints !== false : true;
  box.dataset.game = name;
  const levels = snap.levels ?? [];
  box.replaceChildren(el("legend", { text: t("seats_played") }), ...seats.slice(0, count).map((seat, i) =>
    el("label", {}, el("span", { text: t("player_n", { n: i + 1 }) }), " ",
      el("select", { name: `seat${i}`, "data-seat": String(i + 1) },
        el("option", { value: "", text: t("human") }),
        ...levels.map((level) => el("option", {
          value: level, text: t("computer_level", { level: levelName(level) }),
          selected: kept[i] === level ? "" : null,
        }))))));
}

// The seats the table is to play, as `smartboard new --computer` takes them: "2:strong".
function chosenComputer() {
  return [...$("new-seats").querySelectorAll("select")]
    .filter((select) => select.value)
    .map((select) => `${select.dataset.seat}:${select.value}`);
}

document.getElementById("hint").addEventListener("click", () => post("hint"));
