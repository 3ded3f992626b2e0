import { type KeyboardEvent, type ReactNode, useEffect, useRef, useState } from 'react';
import type { ControlProps } from './field.tsx';
import { useSettled } from './settling-input.tsx';

/** What a search found for the text it was given, or why it found nothing. */
interface Found<T> {
  readonly text: string;
  readonly items: readonly T[];
  readonly failure?: string;
}

/** What a SearchPicker is given besides its control's id and ARIA attributes. */
interface SearchPickerProps<T> {
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
}: ControlProps & SearchPickerProps<T>) {
  const picker = usePicker(value, textOf, onChoose);
  const { text, open, active } = picker;
  const query = useSettled(picker.edited ? text.trim() : '');
  const found = useFound(open, query, search);
  const items = found?.items ?? [];
  const shown = open && items.length > 0;
  const listId = `${control.id}-choices`;
  const choiceId = (index: number) => `${control.id}-choice-${index}`;
  const activeItem = shown ? items[active] : undefined;
  const activeId = activeItem === undefined ? undefined : choiceId(active);
  useEffect(() => {
    if (activeId !== undefined) document.getElementById(activeId)?.scrollIntoView({ block: 'nearest' });
  }, [activeId]);
  const typedExactly = () => (picker.edited ? items.find((item) => textOf(item) === text.trim()) : undefined);

  const status = !open ? '' : statusOf(found, query, describe);
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
        onChange={(event) => picker.type(event.target.value)}
        onClick={() => picker.setOpen(true)}
        onKeyDown={keysOf(picker, items, () => activeItem ?? typedExactly())}
        onBlur={() => {
          const item = typedExactly();
          if (item === undefined) {
            picker.close();
            picker.putBack();
          } else picker.choose(item);
        }}
      />
      <Choices
        id={listId}
        label={listLabel}
        hidden={!shown}
        items={items}
        active={active}
        choiceId={choiceId}
        textOf={textOf}
        show={show}
        onChoose={picker.choose}
      />
      <p role="status" className={open && items.length === 0 ? 'search-picker-note' : 'visually-hidden'}>
        {status}
      </p>
    </div>
  );
}

/** What the status line says while the list is open: still searching, what failed, or what was found. */
const statusOf = <T,>(
  found: Found<T> | undefined,
  query: string,
  describe: (items: readonly T[]) => string,
) => (found === undefined || found.text !== query ? 'Searching…' : (found.failure ?? describe(found.items)));

/** The offered items, the active one marked: a click chooses one. */
function Choices<T>({
  id,
  label,
  hidden,
  items,
  active,
  choiceId,
  textOf,
  show,
  onChoose,
}: Pick<SearchPickerProps<T>, 'textOf' | 'show' | 'onChoose'> & {
  id: string;
  label: string;
  hidden: boolean;
  items: readonly T[];
  active: number;
  choiceId: (index: number) => string;
}) {
  return (
    <div
      id={id}
      role="listbox"
      aria-label={label}
      className="search-picker-choices"
      hidden={hidden}
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
          onClick={() => onChoose(item)}
        >
          {show(item)}
        </div>
      ))}
    </div>
  );
}

/**
 * The field's text, whether it is the person's (edited) or the chosen item's, whether the list is
 * open and which choice is active; and the moves between them.
 */
function usePicker<T>(value: string, textOf: (item: T) => string, onChoose: (item: T) => void) {
  const [text, setText] = useState(value);
  /** The text is the person's, not the chosen item's: what they typed is what to search for. */
  const [edited, setEdited] = useState(false);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  useEffect(() => {
    setText(value);
    setEdited(false);
  }, [value]);
  const close = () => {
    setOpen(false);
    setActive(-1);
  };
  return {
    text,
    edited,
    open,
    setOpen,
    active,
    setActive,
    close,
    putBack: () => {
      setText(value);
      setEdited(false);
    },
    choose: (item: T) => {
      close();
      setText(textOf(item));
      setEdited(false);
      if (textOf(item) !== value) onChoose(item);
    },
    type: (typed: string) => {
      setText(typed);
      setEdited(true);
      setOpen(true);
      setActive(-1);
    },
  };
}

/** What `search` found for `query`, asked again whenever the list opens or the query settles. */
function useFound<T>(open: boolean, query: string, search: (text: string) => Promise<readonly T[]>) {
  const [found, setFound] = useState<Found<T>>();
  const searchNow = useRef(search);
  searchNow.current = search;
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
  return found;
}

/**
 * The field's keys: the arrows open the list and move through it, Enter chooses the active choice
 * (or the one typed exactly, `enterChooses`), Escape closes the list or, closed, puts the text back.
 */
const keysOf =
  <T,>(picker: ReturnType<typeof usePicker<T>>, items: readonly T[], enterChooses: () => T | undefined) =>
  (event: KeyboardEvent<HTMLInputElement>) => {
    const step = { ArrowDown: 1, ArrowUp: -1 }[event.key];
    if (step !== undefined) {
      event.preventDefault();
      if (!picker.open) picker.setOpen(true);
      else picker.setActive(Math.min(Math.max(picker.active + step, 0), items.length - 1));
    } else if (event.key === 'Enter') {
      const item = picker.open ? enterChooses() : undefined;
      if (item === undefined) return;
      event.preventDefault();
      picker.choose(item);
    } else if (event.key === 'Escape') {
      if (picker.open) {
        event.preventDefault();
        picker.close();
      } else picker.putBack();
    }
  };
