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
