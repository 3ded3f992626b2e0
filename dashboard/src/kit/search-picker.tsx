import { type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import type { ControlProps } from './field.tsx';
import { useSettled } from './settling-input.tsx';

/** What a search found for the text it was given, or why it found nothing. */
interface Found<T> {
  readonly text: string;
  readonly items: readonly T[];
  readonly failure?: string;
}

/**
 * A text field that chooses one item of a collection too large to list: what `search` finds for
 * the text typed is offered below it, asked for once typing pauses (as the lists' searches are).
 * The ARIA combobox pattern with a listbox popup: ArrowDown opens the list and moves down, ArrowUp
 * moves up, Enter or a click chooses, Escape closes the list and, once closed, puts the chosen
 * item's text back. The field shows `value`, the text of the item chosen ('' for none); leaving
 * it with other text puts `value` back, unless that text is exactly an offered item's, which is
 * then chosen. Choosing the item already chosen changes nothing.
 */
export function SearchPicker<T>({
  value,
  search,
  textOf,
  show,
  describe,
  listLabel,
  onChoose,
  disabled,
  ...control
}: ControlProps & {
  value: string;
  /** The items to offer for the text typed, trimmed ('' before any typing: the first few). */
  search: (text: string) => Promise<readonly T[]>;
  /** The text that names an item: the field's text once it is chosen, and the choice's id. */
  textOf: (item: T) => string;
  /** An item as its choice reads. */
  show: (item: T) => ReactNode;
  /** What was found, in words (said to screen readers; shown when nothing was). */
  describe: (items: readonly T[]) => string;
  /** The list's accessible name. */
  listLabel: string;
  onChoose: (item: T) => void;
  disabled?: boolean;
}) {
  const [text, setText] = useState(value);
  /** The text is the person's, not the chosen item's: what they typed is what to search for. */
  const [edited, setEdited] = useState(false);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [found, setFound] = useState<Found<T>>();
  const query = useSettled(edited ? text.trim() : '');
  const searchNow = useRef(search);
  searchNow.current = search;

  useEffect(() => {
    setText(value);
    setEdited(false);
  }, [value]);
  useEffect(() => {
    if (!open) return;
    let current = true;
    searchNow.current(query).then(
      (items) => current && setFound({ text: query, items }),
      (error: Error) => current && setFound({ text: query, items: [], failure: error.message }),
    );
    return () => {
      current = false;
    };
  }, [open, query]);

  const items = found?.items ?? [];
  const shown = open && items.length > 0;
  const listId = `${control.id}-choices`;
  const choiceId = (index: number) => `${control.id}-choice-${index}`;
  const activeItem = shown ? items[active] : undefined;
  const activeId = activeItem === undefined ? undefined : choiceId(active);
  useEffect(() => {
    if (activeId !== undefined) document.getElementById(activeId)?.scrollIntoView({ block: 'nearest' });
  }, [activeId]);

  const close = () => {
    setOpen(false);
    setActive(-1);
  };
  const putBack = () => {
    setText(value);
    setEdited(false);
  };
  const choose = (item: T) => {
    close();
    setText(textOf(item));
    setEdited(false);
    if (textOf(item) !== value) onChoose(item);
  };
  const typedExactly = () => (edited ? items.find((item) => textOf(item) === text.trim()) : undefined);

  const keyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const step = { ArrowDown: 1, ArrowUp: -1 }[event.key];
    if (step !== undefined) {
      event.preventDefault();
      if (!open) setOpen(true);
      else setActive(Math.min(Math.max(active + step, 0), items.length - 1));
    } else if (event.key === 'Enter') {
      const item = open ? (activeItem ?? typedExactly()) : undefined;
      if (item === undefined) return;
      event.preventDefault();
      choose(item);
    } else if (event.key === 'Escape') {
      if (open) {
        event.preventDefault();
        close();
      } else putBack();
    }
  };

  const status = !open
    ? ''
    : found === undefined || found.text !== query
      ? 'Searching…'
      : (found.failure ?? describe(found.items));
  return (
    <div className="search-picker">
      <input
        {...control}
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls={listId}
        aria-activedescendant={activeId}
        autoComplete="off"
        spellCheck={false}
        disabled={disabled}
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setEdited(true);
          setOpen(true);
          setActive(-1);
        }}
        onClick={() => setOpen(true)}
        onKeyDown={keyDown}
        onBlur={() => {
          const item = typedExactly();
          if (item === undefined) {
            close();
            putBack();
          } else choose(item);
        }}
      />
      <div
        id={listId}
        role="listbox"
        aria-label={listLabel}
        className="search-picker-choices"
        hidden={!shown}
        // A press on a choice must not take the focus from the field, or leaving it would close the list first.
        onMouseDown={(event) => event.preventDefault()}
      >
        {items.map((item, index) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the field's keys choose (aria-activedescendant)
          <div
            key={textOf(item)}
            id={choiceId(index)}
            role="option"
            tabIndex={-1}
            aria-selected={index === active}
            onClick={() => choose(item)}
          >
            {show(item)}
          </div>
        ))}
      </div>
      <p role="status" className={open && items.length === 0 ? 'search-picker-note' : 'visually-hidden'}>
        {status}
      </p>
    </div>
  );
}
