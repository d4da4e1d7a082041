// Text for a terminal. The command line prints names and texts that other people typed (a dataset's
// name, a criterion's, a row's question in an error), and the server's log lines carry them too. A
// terminal takes an ESC sequence in them as a command: clear the screen, retitle the window, write
// to the clipboard (OSC 52), hide the rest of the line; a bidirectional override (U+202E) shows the
// text reordered. So every control character but line feed and tab (C0, DEL, C1) and the
// bidirectional embedding, override and isolate characters are written as \uXXXX: visible, and in
// JSON the same value as before.

const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_ONE = new RegExp(UNSAFE.source);

/** Whether a text holds one of the characters above (limits.ts refuses them, and line feeds, in names). */
export function hasTerminalControl(text: string): boolean {
  return UNSAFE_ONE.test(text);
}

export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON.stringify's text for a terminal: C0 is already escaped there, the rest is escaped the same way (same JSON value). */
export function terminalJson(value: unknown): string {
  return terminalSafe(JSON.stringify(value));
}
