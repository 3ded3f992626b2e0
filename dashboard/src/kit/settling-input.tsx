import { type InputHTMLAttributes, useEffect, useRef, useState } from 'react';

/** How long typing pauses before the text counts: a request per pause, not per keystroke. */
const PAUSE_MS = 250;

/**
 * A text input whose (trimmed) text is reported once typing pauses, and which shows `value` again
 * when it changes from elsewhere: Back, Forward or a link to a filtered list.
 */
export function SettlingInput({
  value,
  onSettle,
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'> & {
  value: string;
  onSettle: (text: string) => void;
}) {
  const [text, setText] = useState(value);
  const settle = useRef(onSettle);
  settle.current = onSettle;
  // The text stays as typed (a space before the next word too) while it says what `value` says.
  useEffect(() => setText((typed) => (typed.trim() === value ? typed : value)), [value]);
  useEffect(() => {
    if (text.trim() === value) return;
    const timer = setTimeout(() => settle.current(text.trim()), PAUSE_MS);
    return () => clearTimeout(timer);
  }, [text, value]);
  return <input {...input} value={text} onChange={(event) => setText(event.target.value)} />;
}

/** `text` as it stood when typing last paused, as SettlingInput reports it: a search per pause. */
export function useSettled(text: string): string {
  const [settled, setSettled] = useState(text);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(text), PAUSE_MS);
    return () => clearTimeout(timer);
  }, [text]);
  return settled;
}
