// Sound cues, off until a player turns them on (the header's Sound button, kept in the
// browser): two rising notes when the turn passes to another player, a low buzz when the table
// must be put right, a short tune when the game ends. Made with the Web Audio API: no files.
"use strict";

const CUES = {
  turn: { wave: "sine", notes: [[660, 0.12], [880, 0.16]] },
  wrong: { wave: "square", notes: [[180, 0.35]] },
  over: { wave: "sine", notes: [[523, 0.15], [659, 0.15], [784, 0.3]] },
};
let soundOn = localStorage.getItem("sound") === "on";
let audio = null;
let heard = null; // what the last live snapshot sounded like

function playCue(name) {
  if (!soundOn) return;
  audio ??= new AudioContext();
  const cue = CUES[name];
  let at = audio.currentTime;
  for (const [hertz, seconds] of cue.notes) {
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.type = cue.wave;
    tone.frequency.value = hertz;
    volume.gain.setValueAtTime(0.15, at);
    volume.gain.exponentialRampToValueAtTime(0.001, at + seconds);
    tone.connect(volume).connect(audio.destination);
    tone.start(at);
    tone.stop(at + seconds);
    at += seconds;
  }
}

// The cue a new live snapshot calls for, if any: the first one heard is no news.
function soundCues(live) {
  const now = {
    game: live.game,
    toMove: live.to_move,
    wrong: Object.values(live.spots).some((spot) => spot.fix),
    over: live.result !== null,
  };
  const before = heard;
  heard = now;
  if (!before || before.game !== now.game) return;
  if (now.over && !before.over) playCue("over");
  else if (now.wrong && !before.wrong) playCue("wrong");
  else if (now.toMove !== before.toMove && now.toMove && now.toMove !== "chance") playCue("turn");
}

function drawSound() {
  const button = document.getElementById("sound");
  button.textContent = t(soundOn ? "sound_on" : "sound_off");
  button.setAttribute("aria-pressed", String(soundOn));
}

document.getElementById("sound").addEventListener("click", () => {
  soundOn = !soundOn;
  localStorage.setItem("sound", soundOn ? "on" : "off");
  drawSound();
  // A browser lets a page make sound once a person has touched it: this tap.
  if (soundOn) (audio ??= new AudioContext()).resume();
});
