"use strict";
// A roll held unsure (issue 22): the tray as the camera saw it, each unsure die outlined and
// numbered, and beside it each unsure die's best two readings as buttons. A tap settles that
// die (`confirm` with its number and face); once every one is settled, the table applies the
// roll, as confirmed if every tap kept the value read, as corrected if one changed it.

let unsureRoll = null; // the held roll whose picture is shown

function drawUnsure() {
  const held = snap.dice_unsure;
  $("dice-unsure").hidden = !held;
  if (!held) {
    unsureRoll = null;
    return;
  }
  $("unsure-picture").alt = t("unsure_picture");
  $("unsure-text").textContent = t("unsure", {
    values: held.values.join(", "),
    confidence: held.confidence,
  });
  if (held.roll !== unsureRoll) {
    unsureRoll = held.roll;
    showUnsurePicture(held.picture);
    if (held.picture) $("unsure-picture").src = `/api/unsure.jpg?roll=${held.roll}`;
  }
  $("unsure-dice").replaceChildren(...held.dice.map(unsureDie));
}

// The picture, or why there is none: the buttons stay either way.
function showUnsurePicture(shown) {
  $("unsure-picture").hidden = !shown;
  $("unsure-no-picture").hidden = shown;
  if (!shown) $("unsure-picture").removeAttribute("src");
}

function unsureDie(die) {
  const which = die.colour
    ? t("unsure_die_colour", { die: die.die, colour: wordText(die.colour) })
    : t("unsure_die", { die: die.die });
  const readings = die.readings.map((reading) => {
    const chance = Math.round(reading.chance * 100);
    return el("button", {
      type: "button",
      class: "reading",
      "aria-pressed": String(die.picked === reading.face),
      "aria-label": t("unsure_reading", { die: which, face: wordText(reading.face), chance }),
      onclick: () => post("confirm", { die: die.die, face: reading.face }),
    }, dieFace(reading.face, `${chance} %`), el("span", { class: "chance", text: `${chance} %` }));
  });
  // The oblique reader gives no other face: its value alone, and the typed roll for another.
  const alone = readings.length < 2 ? el("span", { class: "alone", text: t("unsure_alone") }) : "";
  return el("li", { "data-die": die.die }, el("span", { class: "which", text: which }), ...readings, alone);
}
