// Where a `.json` file stops being JSON, and why, in words: JSON.parse says only "Unexpected
// token" for most mistakes, often without a position. Run on text JSON.parse refused; the YAML
// reader, which accepts what JSON does not (trailing commas, unquoted keys, comments), never
// reads a .json file that this or JSON.parse refuses.

export interface JsonProblem {
  /** Where in the text it is (the offending character, or the comma before a closing bracket). */
  readonly offset: number;
  readonly message: string;
}

class Refused {
  readonly offset: number;
  readonly message: string;

  constructor(offset: number, message: string) {
    this.offset = offset;
    this.message = message;
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPE = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y;

/** The first place `text` is not JSON (RFC 8259), or undefined when it is. */
export function jsonProblem(text: string): JsonProblem | undefined {
  let at = 0;
  const refuse = (message: string, offset = at): never => {
    throw new Refused(offset, message);
  };
  const space = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at] as string)) at++;
  };
  /** What is wrong with the character at `at`, where a value or a key was due. */
  const unexpected = (): string => {
    if (at >= text.length) return 'the file ends before the JSON does';
    if (text.startsWith('//', at) || text.startsWith('/*', at)) return 'comments are not allowed in JSON';
    if (text[at] === "'") return 'strings must be in double quotes';
    return `unexpected ${JSON.stringify(text[at])}`;
  };
  const string = () => {
    const start = at++;
    while (at < text.length) {
      const c = text[at] as string;
      if (c === '"') {
        at++;
        return;
      }
      if (c === '\\') {
        ESCAPE.lastIndex = at;
        if (!ESCAPE.test(text)) refuse(`unknown escape "${text.slice(at, at + 2)}" in a string`);
        at = ESCAPE.lastIndex;
      } else if (c < ' ') refuse('a string may not hold a line break or control character (write \\n)');
      else at++;
    }
    refuse('a string is never closed', start);
  };
  /** The rest of an object or array, after its opening bracket; `item` reads one entry. */
  const entries = (close: '}' | ']', item: () => void) => {
    space();
    if (text[at] === close) {
      at++;
      return;
    }
    for (;;) {
      item();
      space();
      if (text[at] === close) {
        at++;
        return;
      }
      if (text[at] !== ',') refuse(at >= text.length ? unexpected() : `expected "," or "${close}"`);
      const comma = at++;
      space();
      if (text[at] === close) refuse(`a trailing comma before "${close}"`, comma);
    }
  };
  const value = (): void => {
    space();
    const c = text[at];
    if (c === '{') {
      at++;
      entries('}', () => {
        space();
        if (text[at] !== '"')
          refuse(/[A-Za-z_$]/.test(text[at] ?? '') ? 'a key must be in double quotes' : unexpected());
        string();
        space();
        if (text[at] !== ':') refuse('expected ":" after the key');
        at++;
        value();
      });
    } else if (c === '[') {
      at++;
      entries(']', value);
    } else if (c === '"') string();
    else {
      NUMBER.lastIndex = at;
      const word = ['true', 'false', 'null'].find((w) => text.startsWith(w, at));
      if (word !== undefined) at += word.length;
      else if (NUMBER.test(text)) at = NUMBER.lastIndex;
      else refuse(unexpected());
    }
  };
  try {
    value();
    space();
    if (at < text.length) refuse('more after the JSON value');
    return undefined;
  } catch (error) {
    if (error instanceof Refused) return { offset: error.offset, message: error.message };
    throw error;
  }
}
