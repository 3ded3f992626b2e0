import { type ReactNode, useEffect, useRef } from 'react';
import { CopyButton } from '../ui.tsx';

/** A value to copy: read-only, selected whole when focused, with its Copy button beside it. */
export function CopyableValue({
  id,
  label,
  labelHidden = false,
  value,
  copyLabel,
}: {
  id: string;
  label: ReactNode;
  /** For a value whose panel's heading already says what it is. */
  labelHidden?: boolean;
  value: string;
  copyLabel: string;
}) {
  return (
    <div className="secret-row">
      <label htmlFor={id} className={labelHidden ? 'visually-hidden' : undefined}>
        {label}
      </label>
      <input
        id={id}
        readOnly
        value={value}
        spellCheck={false}
        onFocus={(e) => e.target.select()}
        className="mono"
      />
      <CopyButton text={value} label={copyLabel} />
    </div>
  );
}

/**
 * A panel that opens because the person did something (created a key, asked for selectors): its
 * heading takes focus, so a screen reader says what appeared, and a button closes it. What the
 * server shows only once (a key, a signing secret, a one-time link) is one, `panel secret`, with a
 * warning and a CopyableValue, closed by saying it is stored.
 */
export function OpenedPanel({
  id,
  title,
  className = 'panel',
  closeLabel,
  primary = false,
  onClose,
  children,
}: {
  id: string;
  title: ReactNode;
  className?: string;
  closeLabel: string;
  /** Closing is what the person should do next (they have stored a secret). */
  primary?: boolean;
  onClose: () => void;
  children: ReactNode;
}) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <section className={className} aria-labelledby={id}>
      <h2 id={id} tabIndex={-1} ref={ref}>
        {title}
      </h2>
      {children}
      <button type="button" className={primary ? 'btn primary' : 'btn'} onClick={onClose}>
        {closeLabel}
      </button>
    </section>
  );
}
