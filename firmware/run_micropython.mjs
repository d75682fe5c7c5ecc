// Runs firmware/selftest.py under MicroPython (the WebAssembly port, in Node), for `make test`.
// Usage: node firmware/run_micropython.mjs PATH/TO/micropython.mjs
import { readFileSync, readdirSync } from "fs";
import { dirname, join } from "path";
import { fileURLToPath, pathToFileURL } from "url";

const here = dirname(fileURLToPath(import.meta.url));
const { loadMicroPython } = await import(pathToFileURL(process.argv[2]).href);
const mp = await loadMicroPython({
  heapsize: 4 * 1024 * 1024,
  stdout: (line) => console.log(line),
  stderr: (line) => console.error(line),
});
// The firmware package, laid out in MicroPython's own file system as on the Pico (/firmware),
// without the modules that need the Pico's `machine`.
mp.FS.mkdir("/firmware");
for (const name of readdirSync(here)) {
  if (name.endsWith(".py") && name !== "main.py" && name !== "board.py") {
    mp.FS.writeFile("/firmware/" + name, readFileSync(join(here, name)));
  }
}
try {
  mp.runPython(
    "import sys\nsys.path.insert(0, '/')\nfrom firmware import selftest\nfailed = selftest.run()",
  );
} catch (error) {
  console.error(error.message ?? error);
  process.exit(1);
}
process.exit(mp.globals.get("failed") === 0 ? 0 : 1);
