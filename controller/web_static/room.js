// Linked tables (controller/room.py): the room played in, its state, which seats are played
// here (at this table, or on this page alone) and which at other tables, how chance is rolled.
"use strict";

function roomSeats(numbers) {
  return numbers.map((n) => t("room_seat", { player: playerName(snap.players[n - 1]), n })).join(", ");
}

function drawRoom() {
  const room = snap.room;
  $("room").hidden = !room;
  if (!room) return;
  $("room").dataset.state = room.state;
  $("room-title").textContent = t("room_title", { room: room.room });
  $("room-state").textContent = t(`room_state_${room.state}`);
  $("room-here").textContent = t(room.page_only ? "room_here_page" : "room_here",
    { players: roomSeats(room.seats) });
  $("room-elsewhere").textContent = room.elsewhere.length === 0 ? ""
    : t("room_elsewhere", { players: roomSeats(room.elsewhere) });
  $("room-dice").textContent = t(`room_dice_${room.dice}`);
}

// What to do now when the turn is not this table's (in place of the phase's help, which speaks
// to the player to move): wait for another table's move or roll, or carry out its move as lit.
// On a page alone, a roll of its own seat is entered on the page: there is no tray.
function roomTurnHelp() {
  const room = snap.room;
  if (!room || snap.result) return null;
  if (room.state === "disagree") return t("now_disagree");
  if (room.rolled_elsewhere && !snap.dice_wanted) return t("now_remote_cards"); // dealt, laid unseen
  if (room.rolled_elsewhere) return t(room.page_only ? "now_remote_roll_page" : "now_remote_roll");
  if (room.page_only && snap.dice_wanted) return t("now_page_roll");
  if (!room.elsewhere.includes(snap.players.indexOf(snap.to_move) + 1)) return null;
  const note = snap.note;
  if (note?.key === "remote_move" && note.actions?.length === 1) {
    const own = ownMove(note.player, note.actions[0]);
    return own ? t("now_table_move_own", own)
      : t("now_table_move", { player: playerName(note.player), move: actionText(note.actions[0]) });
  }
  return t(room.page_only ? "now_remote_page" : "now_remote", { player: playerName(snap.to_move) });
}

// The tables-disagree alert's actions in words (an action the game cannot read comes as JSON).
function roomAlertParams(key, params) {
  if (key !== "tables_disagree") return params;
  const named = (id) => (id.startsWith("{") ? id : t("room_quoted", { text: actionText(id) }));
  return { ...params, theirs: named(params.theirs),
    last: params.last === null ? t("room_game_start") : named(params.last) };
}
