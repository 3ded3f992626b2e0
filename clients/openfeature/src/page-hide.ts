/**
 * Calls `listener` when the page is hidden (a tab switched away, the app sent to the background)
 * or left: `visibilitychange` to hidden is the last event a mobile browser reliably fires,
 * `pagehide` covers the browsers that skip it on unload. Outside a browser it does nothing.
 * Returns the function that stops listening.
 */
export function onPageHide(listener: () => void): () => void {
  if (typeof document === 'undefined' || typeof window === 'undefined') return () => {};
  const onVisibility = () => {
    if (document.visibilityState === 'hidden') listener();
  };
  document.addEventListener('visibilitychange', onVisibility);
  window.addEventListener('pagehide', listener);
  return () => {
    document.removeEventListener('visibilitychange', onVisibility);
    window.removeEventListener('pagehide', listener);
  };
}
