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
  try {
    new JsonReader(text).document();
    return undefined;
  } catch (error) {
    if (error instanceof Refused) return { offset: error.offset, message: error.message };
    throw error;
  }
}

/** Reads JSON text from its start, throwing Refused at the first place it is not JSON. */
class JsonReader {
  readonly #text: string;
  #at = 0;

  constructor(text: string) {
    this.#text = text;
  }

  /** One value, and nothing after it but space. */
  document(): void {
    this.#value();
    this.#space();
    if (this.#at < this.#text.length) this.#refuse('more after the JSON value');
  }

  #refuse(message: string, offset = this.#at): never {
    throw new Refused(offset, message);
  }

  #space(): void {
    while (this.#at < this.#text.length && ' \t\n\r'.includes(this.#text[this.#at] as string)) this.#at++;
  }

  /** What is wrong with the character at `at`, where a value or a key was due. */
  #unexpected(): string {
    const text = this.#text;
    const at = this.#at;
    if (at >= text.length) return 'the file ends before the JSON does';
    if (text.startsWith('//', at) || text.startsWith('/*', at)) return 'comments are not allowed in JSON';
    if (text[at] === "'") return 'strings must be in double quotes';
    return `unexpected ${JSON.stringify(text[at])}`;
  }

  #string(): void {
    const text = this.#text;
    const start = this.#at++;
    while (this.#at < text.length) {
      const c = text[this.#at] as string;
      if (c === '"') {
        this.#at++;
        return;
      }
      if (c === '\\') {
        ESCAPE.lastIndex = this.#at;
        if (!ESCAPE.test(text))
          this.#refuse(`unknown escape "${text.slice(this.#at, this.#at + 2)}" in a string`);
        this.#at = ESCAPE.lastIndex;
      } else if (c < ' ') this.#refuse('a string may not hold a line break or control character (write \\n)');
      else this.#at++;
    }
    this.#refuse('a string is never closed', start);
  }

  /** Past `close` when it is next; false otherwise. */
  #closes(close: '}' | ']'): boolean {
    if (this.#text[this.#at] !== close) return false;
    this.#at++;
    return true;
  }

  /** The rest of an object or array, after its opening bracket; `item` reads one entry. */
  #entries(close: '}' | ']', item: () => void): void {
    this.#space();
    if (this.#closes(close)) return;
    for (;;) {
      item();
      this.#space();
      if (this.#closes(close)) return;
      if (this.#text[this.#at] !== ',')
        this.#refuse(this.#at >= this.#text.length ? this.#unexpected() : `expected "," or "${close}"`);
      const comma = this.#at++;
      this.#space();
      if (this.#text[this.#at] === close) this.#refuse(`a trailing comma before "${close}"`, comma);
    }
  }

  /** One `"key": value` of an object. */
  #member(): void {
    this.#space();
    if (this.#text[this.#at] !== '"')
      this.#refuse(
        /[A-Za-z_$]/.test(this.#text[this.#at] ?? '') ? 'a key must be in double quotes' : this.#unexpected(),
      );
    this.#string();
    this.#space();
    if (this.#text[this.#at] !== ':') this.#refuse('expected ":" after the key');
    this.#at++;
    this.#value();
  }

  #value(): void {
    this.#space();
    const text = this.#text;
    const c = text[this.#at];
    if (c === '{') {
      this.#at++;
      this.#entries('}', () => this.#member());
    } else if (c === '[') {
      this.#at++;
      this.#entries(']', () => this.#value());
    } else if (c === '"') this.#string();
    else {
      NUMBER.lastIndex = this.#at;
      const word = ['true', 'false', 'null'].find((w) => text.startsWith(w, this.#at));
      if (word !== undefined) this.#at += word.length;
      else if (NUMBER.test(text)) this.#at = NUMBER.lastIndex;
      else this.#refuse(this.#unexpected());
    }
  }
}
