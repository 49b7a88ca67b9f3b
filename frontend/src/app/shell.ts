import type { ShellSession } from '../features/auth';

/**
 * How a prerendered page says, on its #root element, which session it was rendered for:
 * `data-shell="signed-out"` or `"signed-in"`. An empty #root (every page but home) has none.
 */
const SHELL_ATTRIBUTE = 'data-shell';
const SIGNED_IN = 'signed-in';
const SIGNED_OUT = 'signed-out';

/** The #root element around prerendered markup, marked with the session it shows. */
export function shellRoot(session: ShellSession, markup: string): string {
  const value = session.signedIn ? SIGNED_IN : SIGNED_OUT;
  return `<div id="root" ${SHELL_ATTRIBUTE}="${value}">${markup}</div>`;
}

/** The session the markup in `root` was prerendered for, or null if it holds none. */
export function shellOf(root: HTMLElement): ShellSession | null {
  const value = root.getAttribute(SHELL_ATTRIBUTE);
  if (value !== SIGNED_IN && value !== SIGNED_OUT) return null;
  return { signedIn: value === SIGNED_IN };
}
