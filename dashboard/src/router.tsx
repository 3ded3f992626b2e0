import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useSyncExternalStore } from 'react';

/**
 * A router the size of the problem: the History API, a listener set, and guards that keep
 * unsaved edits from being lost by a click, the Back button or closing the tab.
 */
const listeners = new Set<() => void>();
const guards = new Set<{ message: string }>();
let current = location.pathname + location.search;
let askToLeave: (message: string) => Promise<boolean> = async (message) => window.confirm(message);

const notify = () => {
  current = location.pathname + location.search;
  for (const listener of listeners) listener();
};

/** The app's confirmation dialog replaces window.confirm once it is mounted. */
export const setLeaveConfirmation = (ask: (message: string) => Promise<boolean>) => {
  askToLeave = ask;
};

/** Whether the page may be left: true without unsaved edits, else the person's answer. */
export async function mayLeave(): Promise<boolean> {
  const guard = guards.values().next().value;
  return guard === undefined || askToLeave(guard.message);
}

/** Goes to `to`, asking first about unsaved edits unless `force` (the person was asked already). */
export async function navigate(
  to: string,
  options: { replace?: boolean; force?: boolean } = {},
): Promise<void> {
  if (to === current) return;
  if (!options.force && !(await mayLeave())) return;
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  notify();
  window.scrollTo(0, 0);
}

window.addEventListener('popstate', () => {
  if (guards.size === 0) return notify();
  // The URL has already changed: put it back while asking, then go where the person wanted.
  const wanted = location.pathname + location.search;
  history.pushState(null, '', current);
  void mayLeave().then((ok) => {
    if (!ok) return;
    guards.clear();
    history.pushState(null, '', wanted);
    notify();
  });
});

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** The current path and query; re-renders on navigation. */
export const useLocation = (): string => useSyncExternalStore(subscribe, () => current);

/** Matches `/projects/:project/flags/:flag` against a path; the named parts, or undefined. */
export function match(pattern: string, path: string): Record<string, string> | undefined {
  const names: string[] = [];
  const source = pattern.replace(/:(\w+)/g, (_, name: string) => {
    names.push(name);
    return '([^/]+)';
  });
  const found = new RegExp(`^${source}/?$`).exec(path.split('?')[0] ?? '');
  if (!found) return undefined;
  return Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(found[i + 1] ?? '')]));
}

/** A link that navigates inside the app (modified clicks still open new tabs). */
export function Link({ to, onClick, ...rest }: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const click = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    void navigate(to);
  };
  return <a href={to} onClick={click} {...rest} />;
}

/** While `dirty`, leaving the page (in the app or the browser) asks first. */
export function useLeaveGuard(
  dirty: boolean,
  message = 'You have unsaved changes. Leave and lose them?',
): void {
  useEffect(() => {
    if (!dirty) return;
    const guard = { message };
    guards.add(guard);
    const beforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', beforeUnload);
    return () => {
      guards.delete(guard);
      window.removeEventListener('beforeunload', beforeUnload);
    };
  }, [dirty, message]);
}
